import ComposableCore
import JSON

/// The `Decoder` that feeds an action enum's synthesized `init(from:)` from a type path and
/// the fields of the wire object.
///
/// Each keyed container the enum asks for takes the next case name of the path and presents it
/// as the container's only key, which is the shape synthesized code expects
/// (`{"counter": {"_0": …}}`). Under that case, a `ComposableAction` asked for key `_0` is
/// decoded by this same decoder from the rest of the path; any other value is read from the
/// fields with ``JSONValueDecoder``. At the end the whole path and every field must have been
/// used.
final class ActionDecoder: Decoder {
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  let typePath: String
  /// The wire object; its `type` member is never read as a field.
  let fields: JSONObject
  /// The action type whose container comes next: the root type, then each child's.
  private var currentType: Any.Type
  /// Where the next case name starts in `typePath`; nil once every name is used.
  private var nextCaseStart: String.Index?
  /// Where the last used case name ends.
  private var usedEnd: String.Index
  /// How many case names have been used.
  private var level = 0
  /// Field names read so far.
  private var usedFields: [String] = []
  /// The level whose `_0` was read from a field called `"value"`.
  private var valueAliasLevel: Int?

  init(actionType: Any.Type, typePath: String, fields: JSONObject) {
    self.currentType = actionType
    self.typePath = typePath
    self.fields = fields
    self.nextCaseStart = typePath.startIndex
    self.usedEnd = typePath.startIndex
  }

  /// The part of the type path used so far.
  private var usedPath: Substring {
    Substring(typePath.utf8[..<usedEnd])
  }

  func unknownAction(_ problem: String) -> ActionDecodingError {
    ActionDecodingError(.unknownAction, "unknown action \"\(typePath)\": \(problem)")
  }

  func invalidAction(_ problem: String) -> ActionDecodingError {
    ActionDecodingError(.invalidAction, usedPath.isEmpty ? problem : "\(usedPath): \(problem)")
  }

  /// Checks that the path and the fields were used up.
  func finish() throws(ActionDecodingError) {
    if nextCaseStart != nil {
      throw unknownAction("\"\(usedPath)\" takes no child action")
    }
    let expectedCount = fields.count - (fields.index(forKey: "type") == nil ? 0 : 1)
    guard usedFields.count < expectedCount else { return }
    for name in fields.keys where name != "type" && !usedFields.contains(name) {
      throw invalidAction("unknown field \"\(name)\"")
    }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard let start = nextCaseStart else {
      throw unknownAction("\"\(usedPath)\" needs a child action")
    }
    // Byte-wise: a "." followed by a combining mark must still split the path.
    let utf8 = typePath.utf8
    let end = utf8[start...].firstIndex(of: UInt8(ascii: ".")) ?? utf8.endIndex
    let name = Substring(utf8[start..<end])
    nextCaseStart = end == utf8.endIndex ? nil : utf8.index(after: end)
    usedEnd = end
    guard let key = Key(stringValue: String(name)) else {
      throw unknownAction("\(currentType) has no case \"\(name)\"")
    }
    level += 1
    return KeyedDecodingContainer(CaseDecodingContainer(decoder: self, key: key, level: level))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw invalidAction("\(currentType) asked for an unkeyed container; use synthesized Codable")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw invalidAction(
      "\(currentType) asked for a single-value container; use synthesized Codable")
  }

  /// Whether the value for `key` is a child action rather than a field.
  func isChildAction<T>(_ type: T.Type, _ key: some CodingKey) -> Bool {
    key.stringValue == "_0" && T.self is any ComposableAction.Type
  }

  /// Whether the path has case names left for a child action.
  var hasMoreCases: Bool { nextCaseStart != nil }

  /// Decodes the child action from the rest of the path.
  func decodeChild<T: Decodable>(_ type: T.Type) throws -> T {
    currentType = T.self
    return try T(from: self)
  }

  /// The wire field for `key` of the case at `level`, if present: `_0` reads `"value"` unless
  /// the object has an explicit `_0`.
  func field(for key: some CodingKey, level: Int) throws(ActionDecodingError) -> (
    name: String, value: JSONValue
  )? {
    var name = key.stringValue
    if name == "type" {
      throw invalidAction(
        "an associated value labelled \"type\" cannot be sent: the name is reserved")
    }
    if name == "_0", fields.index(forKey: "_0") == nil {
      name = "value"
    } else if valueAliasLevel == level, name.hasPrefix("_"), Int(name.dropFirst()) != nil {
      throw invalidAction(
        "the case has several unlabelled values: send them as \"_0\", \"_1\", …, not \"value\"")
    }
    return fields[name].map { (name, $0) }
  }

  /// Decodes the field for `key` of the case at `level`; it must be present (a `null` is
  /// accepted only when `T` is optional).
  func decodeField<T: Decodable>(_ type: T.Type, for key: some CodingKey, level: Int) throws -> T {
    if hasMoreCases {
      throw unknownAction("\"\(usedPath)\" takes no child action")
    }
    guard let (name, value) = try field(for: key, level: level) else {
      let name = key.stringValue == "_0" ? "value" : key.stringValue
      throw invalidAction("missing field \"\(name)\"")
    }
    if !usedFields.contains(name) {
      usedFields.append(name)
    }
    if name == "value", key.stringValue == "_0" {
      valueAliasLevel = level
    }
    do {
      return try JSONValueDecoder().decode(T.self, from: value)
    } catch let error as DecodingError {
      throw invalidAction("field \"\(name)\": \(error.contextMessage)")
    } catch {
      throw invalidAction("field \"\(name)\": \(error)")
    }
  }

  /// Decodes the field for `key` as an action in its own wire form (`{"type":"toggled"}`),
  /// strictly, naming the field in an error; `null` is nil when `allowsNull`.
  func decodeActionField<A: ComposableAction>(
    _ type: A.Type, for key: some CodingKey, level: Int, allowsNull: Bool
  ) throws -> A? {
    let value = try decodeField(JSONValue.self, for: key, level: level)
    if allowsNull, value.isNull { return nil }
    do {
      return try ActionCoding.decode(A.self, from: value)
    } catch {
      throw invalidAction("field \"\(key.stringValue)\": \(error.message)")
    }
  }
}

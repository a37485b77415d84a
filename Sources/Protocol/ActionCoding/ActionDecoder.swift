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
  /// The fields read so far, in order.
  private var usedFields: [UsedField] = []
  /// False once a case name or a field was read from text that encoding the action would not
  /// write back as it stands (a number read as a `Double`, a struct, an integer written as
  /// `1.0`, a case name in another Unicode form, …).
  private var fieldsRoundTrip = true
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
    for name in fields.keys where name != "type" && !usedFields.contains(where: { $0.name == name })
    {
      throw invalidAction("unknown field \"\(name)\"")
    }
  }

  /// Whether ``ActionCoding/encode(_:)`` of the action just decoded gives back `fields`, the
  /// object it was read from, member for member in the same order: then a line can show the
  /// action as it came, without encoding it again. Called after ``finish()``.
  ///
  /// The encoder writes `type`, then each field in the order the synthesized code decodes
  /// them (declaration order), the lone unlabelled value of a case as `value`; a value comes
  /// back as it was when it was read as the kind it is (an integer as an integer type, a string
  /// as a `String`, …, or an action in its object form that itself round-trips).
  var roundTrips: Bool {
    guard fieldsRoundTrip, fields.count == usedFields.count + 1, fields.first?.key == "type"
    else { return false }
    for (position, field) in usedFields.enumerated() {
      let isLoneValue =
        field.key == "_0" && !usedFields.contains { $0.level == field.level && $0.key != "_0" }
      guard field.name.hasSameUTF8(as: isLoneValue ? "value" : field.key),
        fields[position + 1].key.hasSameUTF8(as: field.name)
      else { return false }
    }
    return true
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
    let caseName = String(name)
    guard let key = Key(stringValue: caseName) else {
      throw unknownAction("\(currentType) has no case \"\(name)\"")
    }
    // Keys match by Unicode equivalence, and the encoder writes the case's own spelling.
    if fieldsRoundTrip, !key.stringValue.hasSameUTF8(as: caseName) {
      fieldsRoundTrip = false
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

  /// The field for `key` of the case at `level`, which must be present, noted as used.
  private func useField(for key: some CodingKey, level: Int) throws(ActionDecodingError) -> (
    name: String, value: JSONValue
  ) {
    if hasMoreCases {
      throw unknownAction("\"\(usedPath)\" takes no child action")
    }
    guard let (name, value) = try field(for: key, level: level) else {
      let name = key.stringValue == "_0" ? "value" : key.stringValue
      throw invalidAction("missing field \"\(name)\"")
    }
    if !usedFields.contains(where: { $0.name == name }) {
      usedFields.append(UsedField(level: level, key: key.stringValue, name: name))
    }
    if name == "value", key.stringValue == "_0" {
      valueAliasLevel = level
    }
    return (name, value)
  }

  /// Decodes the field for `key` of the case at `level`; it must be present (a `null` is
  /// accepted only when `T` is optional).
  func decodeField<T: Decodable>(_ type: T.Type, for key: some CodingKey, level: Int) throws -> T {
    let (name, value) = try useField(for: key, level: level)
    // The commonest fields, read as the JSON decoder reads them, without starting one.
    switch value {
    case .int(let int) where T.self == Int.self: return unsafeBitCast(int, to: T.self)
    case .string(let string) where T.self == String.self:
      return unsafeBitCast(string, to: T.self)
    case .bool(let bool) where T.self == Bool.self: return unsafeBitCast(bool, to: T.self)
    default: break
    }
    if fieldsRoundTrip, !Self.roundTrips(value, as: T.self) {
      fieldsRoundTrip = false
    }
    do {
      return try JSONValueDecoder().decode(T.self, from: value)
    } catch let error as DecodingError {
      throw invalidAction("field \"\(name)\": \(error.contextMessage)")
    } catch {
      throw invalidAction("field \"\(name)\": \(error)")
    }
  }

  /// Whether the field for `key` of the case at `level` is `null`; it must be present.
  func decodeNil(for key: some CodingKey, level: Int) throws(ActionDecodingError) -> Bool {
    // Synthesized enum code does not ask this; what would be encoded instead is not known.
    fieldsRoundTrip = false
    return try useField(for: key, level: level).value.isNull
  }

  /// Decodes the field for `key` as an action in its own wire form (`{"type":"toggled"}`),
  /// strictly, naming the field in an error; `null` is nil when `allowsNull`.
  func decodeActionField<A: ComposableAction>(
    _ type: A.Type, for key: some CodingKey, level: Int, allowsNull: Bool
  ) throws -> A? {
    let value = try useField(for: key, level: level).value
    if allowsNull, value.isNull { return nil }
    do {
      let (action, roundTrips) = try ActionCoding.decodeNoting(A.self, from: value)
      if !roundTrips { fieldsRoundTrip = false }
      return action
    } catch {
      throw invalidAction("field \"\(key.stringValue)\": \(error.message)")
    }
  }

  /// Whether `value`, decoded as a `T`, is encoded back as the same JSON text: a scalar read
  /// as the kind it is. (Not a `Double`, which reads `1.0` and writes `1`, nor a struct, whose
  /// members could be written in another order.)
  private static func roundTrips<T>(_ value: JSONValue, as type: T.Type) -> Bool {
    switch value {
    case .null: T.self is any NullEncodedOptional.Type
    case .bool: T.self == Bool.self || T.self == Bool?.self
    case .string: T.self == String.self || T.self == String?.self
    case .int:
      T.self == Int.self || T.self == Int?.self || T.self is any FixedWidthInteger.Type
    default: false
    }
  }
}

/// A field read: the level of its case, its key, and the wire name it was read under. (A
/// struct: an array of tuples looks up its metadata on every allocation.)
private struct UsedField {
  let level: Int
  let key: String
  let name: String
}

/// `Optional`, whose `nil` the action encoder writes as `null`.
private protocol NullEncodedOptional {}
extension Optional: NullEncodedOptional {}

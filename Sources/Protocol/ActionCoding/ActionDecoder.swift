import ComposableCore
import JSON

/// Reads an action from a type path and the fields of the wire object: for the decoding the
/// `@ComposableAction` macro writes (as its ``ActionWireReader``), and as the `Decoder` that
/// feeds the synthesized `init(from:)` of an enum without it.
///
/// Each keyed container the enum asks for takes the next case name of the path and presents it
/// as the container's only key, which is the shape synthesized code expects
/// (`{"counter": {"_0": …}}`). Under that case, a `ComposableAction` asked for key `_0` is
/// decoded by this same decoder from the rest of the path; any other value is read from the
/// fields with ``JSONValueDecoder``. At the end the whole path and every field must have been
/// used.
final class ActionDecoder: Decoder, ActionWireReader {
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  let typePath: String
  /// The wire object; its `type` member is never read as a field.
  let fields: JSONObject
  /// The action type whose container comes next: the root type, then each child's.
  private var currentType: Any.Type
  /// Where the next case name starts in `typePath`; nil once every name is used.
  private var nextCaseStart: Int?
  /// Where the last used case name ends, in bytes of `typePath`.
  private var usedEnd = 0
  /// The last used case name.
  private var caseName = ""
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

  /// Whether every action is read through its synthesized `Decodable`, for tests.
  private let synthesizedOnly: Bool

  init(actionType: Any.Type, typePath: String, fields: JSONObject, synthesizedOnly: Bool) {
    self.synthesizedOnly = synthesizedOnly
    self.currentType = actionType
    self.typePath = typePath
    self.fields = fields
    self.nextCaseStart = 0
  }

  /// The part of the type path used so far.
  private var usedPath: Substring {
    Substring(typePath.utf8.prefix(usedEnd))
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
    let caseName = try nextCaseName(of: currentType)
    guard let key = Key(stringValue: caseName) else { throw unknownCase(of: currentType) }
    let level = enterCase(key.stringValue)
    return KeyedDecodingContainer(CaseDecodingContainer(decoder: self, key: key, level: level))
  }

  func nextCaseName(of action: Any.Type) throws(ActionDecodingError) -> String {
    currentType = action
    guard let start = nextCaseStart else {
      throw unknownAction("\"\(usedPath)\" needs a child action")
    }
    // Byte-wise: a "." followed by a combining mark must still split the path.
    var path = typePath
    caseName = path.withUTF8 { bytes in
      let end = bytes[start...].firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
      nextCaseStart = end == bytes.count ? nil : end + 1
      usedEnd = end
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }
    return caseName
  }

  func enterCase(_ name: String) -> Int {
    // Case names match by Unicode equivalence, and the encoder writes the case's own spelling.
    if fieldsRoundTrip, !name.hasSameUTF8(as: caseName) {
      fieldsRoundTrip = false
    }
    level += 1
    return level
  }

  func unknownCase(of action: Any.Type) -> any Error {
    unknownAction("\(action) has no case \"\(caseName)\"")
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw invalidAction("\(currentType) asked for an unkeyed container; use synthesized Codable")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw invalidAction(
      "\(currentType) asked for a single-value container; use synthesized Codable")
  }

  func value<Value: Decodable>(_ type: Value.Type, key: String, level: Int) throws -> Value {
    if let action = Self.actionType(Value.self) {
      return try self.value(action, key: key, level: level) as! Value
    }
    return try decodeField(Value.self, for: key, level: level)
  }

  func valueIfPresent<Value: Decodable>(_ type: Value.Type, key: String, level: Int) throws
    -> Value?
  {
    if let action = Self.actionType(Value.self) {
      return try valueIfPresent(action, key: key, level: level) as! Value?
    }
    return try decodeField(Value?.self, for: key, level: level)
  }

  func value<Action: ComposableAction>(_ type: Action.Type, key: String, level: Int) throws
    -> Action
  {
    if key == "_0" { return try decodeAction(Action.self) }
    return try decodeActionField(Action.self, for: key, level: level, allowsNull: false)!
  }

  func valueIfPresent<Action: ComposableAction>(_ type: Action.Type, key: String, level: Int)
    throws -> Action?
  {
    // An optional child action is nil when the path ends here: `{"type":"alert"}` is
    // `.alert(nil)`.
    if key == "_0" { return nextCaseStart == nil ? nil : try decodeAction(Action.self) }
    return try decodeActionField(Action.self, for: key, level: level, allowsNull: true)
  }

  func decodeSynthesized<Action: ComposableAction>(_ action: Action.Type) throws -> Action {
    currentType = Action.self
    return try Action(from: self)
  }

  /// `type` as an action type; nil for the scalars a field commonly holds without asking the
  /// runtime, which looks the conformance up.
  static func actionType<T>(_ type: T.Type) -> (any ComposableAction.Type)? {
    if T.self == Int.self || T.self == String.self || T.self == Bool.self || T.self == Double.self {
      return nil
    }
    return T.self as? any ComposableAction.Type
  }

  /// Decodes an action of type `action` from the rest of the path.
  func decodeAction<Action: ComposableAction>(_ action: Action.Type) throws -> Action {
    if synthesizedOnly { return try decodeSynthesized(Action.self) }
    var reader = self
    return try Action.decodeAction(from: &reader)
  }

  /// The wire field for `key` of the case at `level`, if present: `_0` reads `"value"` unless
  /// the object has an explicit `_0`.
  func field(for key: String, level: Int) throws(ActionDecodingError) -> (
    name: String, value: JSONValue
  )? {
    var name = key
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
  private func useField(for key: String, level: Int) throws(ActionDecodingError) -> (
    name: String, value: JSONValue
  ) {
    if nextCaseStart != nil {
      throw unknownAction("\"\(usedPath)\" takes no child action")
    }
    guard let (name, value) = try field(for: key, level: level) else {
      throw invalidAction("missing field \"\(key == "_0" ? "value" : key)\"")
    }
    if !usedFields.contains(where: { $0.name == name }) {
      usedFields.append(UsedField(level: level, key: key, name: name))
    }
    if name == "value", key == "_0" {
      valueAliasLevel = level
    }
    return (name, value)
  }

  /// Decodes the field for `key` of the case at `level`; it must be present (a `null` is
  /// accepted only when `T` is optional).
  func decodeField<T: Decodable>(_ type: T.Type, for key: String, level: Int) throws -> T {
    let (name, value) = try useField(for: key, level: level)
    // The commonest fields, read as the JSON decoder reads them, without starting one.
    switch value {
    case .int(let int) where T.self == Int.self: return unsafeBitCast(int, to: T.self)
    case .string(let string) where T.self == String.self:
      return unsafeBitCast(string, to: T.self)
    case .bool(let bool) where T.self == Bool.self: return unsafeBitCast(bool, to: T.self)
    default: break
    }
    if fieldsRoundTrip, !Self.readsBack(WireKind(value), as: T.self) {
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
  func decodeNil(for key: String, level: Int) throws(ActionDecodingError) -> Bool {
    // Synthesized enum code does not ask this; what would be encoded instead is not known.
    fieldsRoundTrip = false
    return try useField(for: key, level: level).value.isNull
  }

  /// Decodes the field for `key` as an action in its own wire form (`{"type":"toggled"}`),
  /// strictly, naming the field in an error; `null` is nil when `allowsNull`.
  private func decodeActionField<A: ComposableAction>(
    _ type: A.Type, for key: String, level: Int, allowsNull: Bool
  ) throws -> A? {
    let value = try useField(for: key, level: level).value
    if allowsNull, value.isNull { return nil }
    do {
      let (action, roundTrips) = try ActionCoding.decodeNoting(
        A.self, from: value, synthesizedOnly: synthesizedOnly)
      if !roundTrips { fieldsRoundTrip = false }
      return action
    } catch {
      throw invalidAction("field \"\(key)\": \(error.message)")
    }
  }

  /// Whether a value of `kind`, decoded as a `T`, is encoded back as the same JSON text: a
  /// scalar read as the kind it is. (Not a `Double`, which reads `1.0` and writes `1`, nor a
  /// struct, whose members could be written in another order.)
  static func readsBack<T>(_ kind: WireKind, as type: T.Type) -> Bool {
    switch kind {
    case .null: T.self is any NullEncodedOptional.Type
    case .bool: T.self == Bool.self || T.self == Bool?.self
    case .string: T.self == String.self || T.self == String?.self
    case .integer:
      T.self == Int.self || T.self == Int?.self || T.self is any FixedWidthInteger.Type
    case .other: false
    }
  }
}

/// The kinds of a field's value that decide whether it reads back (``ActionDecoder/readsBack(_:as:)``).
enum WireKind {
  case null, bool, string, integer, other

  init(_ value: JSONValue) {
    switch value {
    case .null: self = .null
    case .bool: self = .bool
    case .string: self = .string
    case .int: self = .integer
    default: self = .other
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

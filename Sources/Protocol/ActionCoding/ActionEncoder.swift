import ComposableCore
@_spi(Hosting) import JSON

/// Writes an action's wire form: for the encoding the `@ComposableAction` macro writes (as its
/// ``ActionWireWriter``), and as the `Encoder` that drives the synthesized `encode(to:)` of an
/// enum without it, whose containers hand each case name and value to the same methods.
///
/// Synthesized code encodes `.counter(.nthPrimeResponse(7))` as: a keyed container, a nested
/// container for the case `counter`, the value `CounterAction.nthPrimeResponse(7)` for key `_0`
/// (which encodes itself the same way), then `7` for key `_0`; the written encoding calls
/// ``appendCase(_:)`` and ``field(_:key:)`` in the same order. Each case name extends the path;
/// a `ComposableAction` under `_0` is written by this same encoder, extending the path further;
/// any other value becomes a field, scalars as they are, an action in its own wire form, other
/// values through ``JSONValueEncoder``. A case's first value is its `_0`, so every case name
/// comes before the first field.
///
/// The wire format cannot carry other shapes, and a field value can only fail to encode when
/// its type is hand-written (or a `UInt64` beyond `Int.max`): these are programming errors, found
/// the first time such an action is encoded, and they stop the program with a message that
/// names the action.
final class ActionEncoder: Encoder, ActionWireWriter {
  /// What the encoder produces.
  enum Form {
    /// The dotted case path alone: fields are not written.
    case typePath
    /// The path and the fields as values, for ``ActionCoding/encode(_:)``.
    case values
    /// The JSON text of the wire object, appended to ``bytes``.
    case bytes
  }

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  let form: Form
  /// Whether every action is written through its synthesized `Encodable`, for tests.
  let synthesizedOnly: Bool

  /// The dotted case path so far, except in the bytes form, which writes it to ``bytes``.
  private(set) var typePath = ""
  /// The wire names of the fields of every level, in the order they were written.
  private(set) var fieldNames: [String] = []
  /// In the values form, the value of each field.
  private(set) var fieldValues: [JSONValue] = []
  /// In the bytes form, the text written so far.
  private(set) var bytes: [UInt8] = []
  /// In the bytes form, where the type string's opening quote is, and its closing quote once a
  /// case name is written.
  private var typePathStart = 0
  private var typePathEnd = 0
  /// The field written as `"value"` for the `_0` of the innermost case, while it is that case's
  /// only field; a second field renames it back to `_0`. The case that holds a child action
  /// has none (its `_0` is the child), so it is forgotten when a child action is done.
  private var loneValue: (field: Int, keyStart: Int)?

  private init(form: Form, synthesizedOnly: Bool) {
    self.form = form
    self.synthesizedOnly = synthesizedOnly
  }

  /// The dotted case path of `action`.
  static func typePath<A: ComposableAction>(of action: A) -> String {
    let encoder = ActionEncoder(form: .typePath, synthesizedOnly: false)
    encoder.child(action)
    return encoder.typePath
  }

  /// The wire object of `action`: `"type"`, then the fields.
  static func object<A: ComposableAction>(_ action: A, synthesizedOnly: Bool) -> JSONValue {
    let encoder = ActionEncoder(form: .values, synthesizedOnly: synthesizedOnly)
    encoder.child(action)
    var object = JSONObject()
    object.reserveCapacity(encoder.fieldNames.count + 1)
    object["type"] = .string(encoder.typePath)
    for (name, value) in zip(encoder.fieldNames, encoder.fieldValues) {
      object[name] = value
    }
    return .object(object)
  }

  /// Appends the JSON text of ``object(_:synthesizedOnly:)`` to `buffer`.
  static func write<A: ComposableAction>(
    _ action: A, into buffer: inout [UInt8], synthesizedOnly: Bool
  ) {
    let encoder = ActionEncoder(form: .bytes, synthesizedOnly: synthesizedOnly)
    // The buffer moves into the encoder and back, uncopied.
    swap(&buffer, &encoder.bytes)
    encoder.bytes.append(contentsOf: #"{"type":"#.utf8)
    encoder.typePathStart = encoder.bytes.count
    encoder.typePathEnd = encoder.typePathStart
    encoder.child(action)
    encoder.bytes.append(UInt8(ascii: "}"))
    swap(&buffer, &encoder.bytes)
  }

  /// Stops the program: the action type does not have the shape the wire format needs.
  static func unsupported(_ problem: String) -> Never {
    fatalError("ActionCoding: \(problem)")
  }

  /// The path so far, for messages.
  var pathWritten: String {
    guard form == .bytes, typePathEnd > typePathStart else { return typePath }
    return String(decoding: bytes[(typePathStart + 1)..<typePathEnd], as: UTF8.self)
  }

  func appendCase(_ name: String) {
    guard form == .bytes else {
      if !typePath.isEmpty { typePath.append(".") }
      typePath.append(name)
      return
    }
    // The name is written quoted and escaped as a string of its own; the quotes between the
    // path so far and it become the dot, so the path is one string escaped alike.
    let isFirst = typePathEnd == typePathStart
    if !isFirst { bytes.removeLast() }
    let start = bytes.count
    JSONWriter.writeString(name, into: &bytes)
    if !isFirst { bytes[start] = UInt8(ascii: ".") }
    typePathEnd = bytes.count - 1
  }

  func field<Value: Encodable>(_ value: Value, key: String) {
    if let action = value as? any ComposableAction {
      // An optional action a generic value holds is cast too; it is a field, as synthesized
      // code has it.
      if key == "_0", Value.self is any ComposableAction.Type {
        child(action)
      } else {
        actionField(action, key: key)
      }
    } else {
      encodedField(value, key: key)
    }
  }

  func fieldIfPresent<Value: Encodable>(_ value: Value?, key: String) {
    if ActionDecoder.actionType(Value.self) != nil {
      optionalAction(value.map { $0 as! any ComposableAction }, key: key)
    } else if let value {
      encodedField(value, key: key)
    } else {
      appendField(key, .null)
    }
  }

  func field<Action: ComposableAction>(_ action: Action, key: String) {
    if key == "_0" {
      child(action)
    } else {
      actionField(action, key: key)
    }
  }

  func fieldIfPresent<Action: ComposableAction>(_ action: Action?, key: String) {
    optionalAction(action, key: key)
  }

  func field(_ value: Int, key: String) { appendField(key, .int(value)) }
  func field(_ value: String, key: String) { appendField(key, .string(value)) }
  func field(_ value: Bool, key: String) { appendField(key, .bool(value)) }
  func fieldIfPresent(_ value: Int?, key: String) {
    appendField(key, value.map { .int($0) } ?? .null)
  }
  func fieldIfPresent(_ value: String?, key: String) {
    appendField(key, value.map { .string($0) } ?? .null)
  }
  func fieldIfPresent(_ value: Bool?, key: String) {
    appendField(key, value.map { .bool($0) } ?? .null)
  }

  func encodeSynthesized<Action: ComposableAction>(_ action: Action) {
    do {
      try action.encode(to: self)
    } catch {
      Self.unsupported("encoding \(Action.self) at \"\(pathWritten)\" failed: \(error)")
    }
  }

  /// An optional action: nil ends the path under `_0` (`.alert(nil)` is `{"type":"alert"}`)
  /// and is `null` under any other name.
  private func optionalAction(_ action: (any ComposableAction)?, key: String) {
    if let action {
      if key == "_0" {
        child(action)
      } else {
        actionField(action, key: key)
      }
    } else if key != "_0" {
      appendField(key, .null)
    }
  }

  /// Writes `action` as the rest of the path and its fields.
  private func child<Action: ComposableAction>(_ action: Action) {
    if synthesizedOnly {
      encodeSynthesized(action)
    } else {
      var writer = self
      action.encodeAction(to: &writer)
    }
    loneValue = nil
  }

  /// A field holding `action` in its own wire form (`"action":{"type":"toggled"}`).
  private func actionField<Action: ComposableAction>(_ action: Action, key: String) {
    guard beginField(key) else { return }
    if form == .bytes {
      Self.write(action, into: &bytes, synthesizedOnly: synthesizedOnly)
    } else {
      fieldValues.append(Self.object(action, synthesizedOnly: synthesizedOnly))
    }
  }

  private func encodedField<Value: Encodable>(_ value: Value, key: String) {
    appendField(key, Self.encoded(value, key: key, at: pathWritten))
  }

  private static func encoded<Value: Encodable>(
    _ value: Value, key: String, at path: @autoclosure () -> String
  ) -> JSONValue {
    do {
      return try JSONValueEncoder().encode(value)
    } catch {
      unsupported("encoding field \"\(key)\" of \"\(path())\" failed: \(error)")
    }
  }

  /// Adds a field.
  func appendField(_ key: String, _ value: @autoclosure () -> JSONValue) {
    guard beginField(key) else { return }
    if form == .bytes {
      value().write(into: &bytes)
    } else {
      fieldValues.append(value())
    }
  }

  /// Names the next field for `key` and, in the bytes form, writes its key; false when fields
  /// are not written.
  private func beginField(_ key: String) -> Bool {
    guard form != .typePath else { return false }
    if let loneValue {
      fieldNames[loneValue.field] = "_0"
      if form == .bytes {
        bytes.replaceSubrange(
          loneValue.keyStart..<loneValue.keyStart + #""value""#.utf8.count, with: #""_0""#.utf8)
      }
      self.loneValue = nil
    }
    let name = key == "_0" ? "value" : key
    if name == "type" || fieldNames.contains(name) {
      Self.unsupported(
        "\"\(pathWritten)\" has two fields named \"\(name)\" (\"type\" is reserved)")
    }
    if key == "_0" {
      // After the comma.
      loneValue = (fieldNames.count, bytes.count + 1)
    }
    fieldNames.append(name)
    if form == .bytes {
      JSONWriter.writeKey(name, isFirst: false, into: &bytes)
    }
    return true
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(CaseEncodingContainer<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    Self.unsupported(
      "an action at \"\(pathWritten)\" asked for an unkeyed container; use synthesized Codable")
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    Self.unsupported(
      "an action at \"\(pathWritten)\" asked for a single-value container; use synthesized Codable"
    )
  }
}

/// The container an action enum opens first: it names the case through `nestedContainer`.
private struct CaseEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: ActionEncoder
  var codingPath: [any CodingKey] { [] }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    encoder.appendCase(key.stringValue)
    return KeyedEncodingContainer(PayloadEncodingContainer<NestedKey>(encoder: encoder))
  }

  private func unexpected(_ key: Key) -> Never {
    ActionEncoder.unsupported(
      "an action at \"\(encoder.pathWritten)\" wrote \"\(key.stringValue)\" directly; use synthesized Codable"
    )
  }

  mutating func encodeNil(forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: Bool, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: String, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: Double, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: Float, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: Int, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: Int8, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: Int16, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: Int32, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: Int64, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: UInt, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: UInt8, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: UInt16, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: UInt32, forKey key: Key) { unexpected(key) }
  mutating func encode(_ value: UInt64, forKey key: Key) { unexpected(key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) { unexpected(key) }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    unexpected(key)
  }
  mutating func superEncoder() -> any Encoder {
    ActionEncoder.unsupported("an action at \"\(encoder.pathWritten)\" asked for a super encoder")
  }
  mutating func superEncoder(forKey key: Key) -> any Encoder { unexpected(key) }
}

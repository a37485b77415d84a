import ComposableCore
import JSON

/// The `Encoder` that turns an action enum's synthesized `encode(to:)` into a type path and a
/// list of fields.
///
/// Synthesized code encodes `.counter(.nthPrimeResponse(7))` as: a keyed container, a nested
/// container for the case `counter`, the value `CounterAction.nthPrimeResponse(7)` for key `_0`
/// (which encodes itself the same way), then `7` for key `_0`. Each case name extends the path;
/// a `ComposableAction` under `_0` is encoded by this same encoder, extending the path further;
/// any other value becomes a field, encoded with ``JSONValueEncoder``.
///
/// The wire format cannot carry other shapes, and a field value can only fail to encode when
/// its type is hand-written (or a `UInt64` beyond `Int.max`): these are programming errors, found
/// the first time such an action is encoded, and they stop the program with a message that
/// names the action.
final class ActionEncoder: Encoder {
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// The dotted case path so far.
  private(set) var typePath = ""
  /// The fields of every level, in the order they were written.
  private(set) var fields: [(name: String, value: JSONValue)] = []
  /// False when only the type path is wanted.
  let collectsFields: Bool

  private init(collectsFields: Bool) {
    self.collectsFields = collectsFields
  }

  static func run<A: ComposableAction>(_ action: A, collectingFields: Bool) -> ActionEncoder {
    let encoder = ActionEncoder(collectsFields: collectingFields)
    do {
      try action.encode(to: encoder)
    } catch {
      unsupported("encoding \(A.self) at \"\(encoder.typePath)\" failed: \(error)")
    }
    return encoder
  }

  /// Stops the program: the action type does not have the shape the wire format needs.
  static func unsupported(_ problem: String) -> Never {
    fatalError("ActionCoding: \(problem)")
  }

  func appendCase(_ name: String) {
    typePath += typePath.isEmpty ? name : "." + name
  }

  /// Adds a field and returns its position.
  func appendField(_ name: String, _ value: JSONValue) -> Int {
    if name == "type" || fields.contains(where: { $0.name == name }) {
      Self.unsupported("\"\(typePath)\" has two fields named \"\(name)\" (\"type\" is reserved)")
    }
    fields.append((name, value))
    return fields.count - 1
  }

  func renameField(at position: Int, to name: String) {
    fields[position].name = name
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(CaseEncodingContainer<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    Self.unsupported(
      "an action at \"\(typePath)\" asked for an unkeyed container; use synthesized Codable")
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    Self.unsupported(
      "an action at \"\(typePath)\" asked for a single-value container; use synthesized Codable")
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
      "an action at \"\(encoder.typePath)\" wrote \"\(key.stringValue)\" directly; use synthesized Codable"
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
    ActionEncoder.unsupported("an action at \"\(encoder.typePath)\" asked for a super encoder")
  }
  mutating func superEncoder(forKey key: Key) -> any Encoder { unexpected(key) }
}

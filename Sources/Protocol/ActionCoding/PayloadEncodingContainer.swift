import ComposableCore
import JSON

/// The container of one case's associated values: each value is a field, except a
/// `ComposableAction` under `_0`, which continues the type path. Any other `ComposableAction`
/// value (`action:` in `.element(id:action:)`) is a field holding that action's own wire form.
///
/// Every `encodeIfPresent` overload is implemented, because the default implementations skip
/// nil and the wire form wants an explicit `null`.
struct PayloadEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: ActionEncoder
  /// The position of this case's `_0` field, written as `"value"` while it is the case's only
  /// field; a second field renames it back to `_0`.
  private var loneValueField: Int?

  init(encoder: ActionEncoder) {
    self.encoder = encoder
  }

  var codingPath: [any CodingKey] { [] }

  private mutating func add(_ key: Key, _ value: @autoclosure () throws -> JSONValue) throws {
    guard encoder.collectsFields else { return }
    if let loneValueField {
      encoder.renameField(at: loneValueField, to: "_0")
      self.loneValueField = nil
    }
    let name = key.stringValue
    if name == "_0" {
      loneValueField = encoder.appendField("value", try value())
    } else {
      _ = encoder.appendField(name, try value())
    }
  }

  /// Whether `key` and `T` make the value a child action rather than a field.
  private func isChildAction<T>(_ type: T.Type, _ key: Key) -> Bool {
    key.stringValue == "_0" && T.self is any ComposableAction.Type
  }

  mutating func encodeNil(forKey key: Key) throws { try add(key, .null) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { try add(key, .bool(value)) }
  mutating func encode(_ value: String, forKey key: Key) throws { try add(key, .string(value)) }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: Int, forKey key: Key) throws { try add(key, .int(value)) }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    try add(key, try JSONValueEncoder().encode(value))
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    if isChildAction(T.self, key) {
      try value.encode(to: encoder)
    } else if let action = value as? any ComposableAction {
      try add(key, ActionCoding.encode(action))
    } else {
      try add(key, try JSONValueEncoder().encode(value))
    }
  }

  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
    try add(key, value.map { .bool($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
    try add(key, value.map { .string($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
    try add(key, value.map { .int($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
    try add(key, value.map { try JSONValueEncoder().encode($0) } ?? .null)
  }

  /// An optional child action ends the path when nil: `.alert(nil)` is `{"type":"alert"}`.
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    if isChildAction(T.self, key) {
      try value?.encode(to: encoder)
    } else if T.self is any ComposableAction.Type {
      let action = value as? any ComposableAction
      try add(key, action.map { ActionCoding.encode($0) } ?? .null)
    } else {
      try add(key, try value.map { try JSONValueEncoder().encode($0) } ?? .null)
    }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    unexpected(key)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    unexpected(key)
  }

  mutating func superEncoder() -> any Encoder {
    ActionEncoder.unsupported(
      "\"\(encoder.typePath)\" asked for a super encoder; use synthesized Codable")
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    unexpected(key)
  }

  private func unexpected(_ key: Key) -> Never {
    ActionEncoder.unsupported(
      "\"\(encoder.typePath)\" opened a container for \"\(key.stringValue)\"; use synthesized Codable"
    )
  }
}

import ComposableCore

/// The container of one case's associated values: it hands each to the encoder's
/// ``ActionWireWriter`` methods, as the encoding `@ComposableAction` writes does, so that the
/// two write every value alike.
///
/// Every `encodeIfPresent` overload is implemented, because the default implementations skip
/// nil and the wire form wants an explicit `null`.
struct PayloadEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: ActionEncoder

  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil(forKey key: Key) { encoder.appendField(key.stringValue, .null) }
  mutating func encode(_ value: Bool, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: String, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: Double, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: Float, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: Int, forKey key: Key) { encoder.field(value, key: key.stringValue) }
  mutating func encode(_ value: Int8, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: Int16, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: Int32, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: Int64, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: UInt, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
    encoder.field(value, key: key.stringValue)
  }

  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
  }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) {
    encoder.fieldIfPresent(value, key: key.stringValue)
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
      "\"\(encoder.pathWritten)\" asked for a super encoder; use synthesized Codable")
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    unexpected(key)
  }

  private func unexpected(_ key: Key) -> Never {
    ActionEncoder.unsupported(
      "\"\(encoder.pathWritten)\" opened a container for \"\(key.stringValue)\"; use synthesized Codable"
    )
  }
}

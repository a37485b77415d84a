/// Writes the members of an object. Every `encodeIfPresent` overload is implemented, because
/// the default implementations skip nil and the state schema wants explicit `null`s.
struct KeyedValueEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: ValueEncoder
  let box: ObjectBox
  /// Depth of the encoder's path when this container was made.
  let depth: Int
  /// Keys from that depth down to this container, for nested containers.
  let keys: [any CodingKey]

  var codingPath: [any CodingKey] { encoder.codingPath(depth: depth, keys: keys) }

  private func set(_ value: JSONValue, _ key: Key) {
    box.set(value, forKey: key.stringValue)
  }

  mutating func encodeNil(forKey key: Key) { set(.null, key) }
  mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), key) }
  mutating func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
  mutating func encode(_ value: Double, forKey key: Key) { set(JSONValue(encoding: value), key) }
  mutating func encode(_ value: Float, forKey key: Key) { set(JSONValue(encoding: value), key) }
  mutating func encode(_ value: Int, forKey key: Key) { set(.int(value), key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    set(try JSONValue(encoding: value, path: codingPath + [key]), key)
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    set(try JSONValue(encoding: value, path: codingPath + [key]), key)
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    set(try JSONValue(encoding: value, path: codingPath + [key]), key)
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    set(try JSONValue(encoding: value, path: codingPath + [key]), key)
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    set(try JSONValue(encoding: value, path: codingPath + [key]), key)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    set(try JSONValue(encoding: value, path: codingPath + [key]), key)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    set(try JSONValue(encoding: value, path: codingPath + [key]), key)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    set(try JSONValue(encoding: value, path: codingPath + [key]), key)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    set(try JSONValue(encoding: value, path: codingPath + [key]), key)
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    set(try encoder.encodeNested(value, at: keys, key), key)
  }

  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) {
    set(value.map { .bool($0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) {
    set(value.map { .string($0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) {
    set(value.map { JSONValue(encoding: $0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) {
    set(value.map { JSONValue(encoding: $0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) {
    set(value.map { .int($0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
    set(try value.map { try JSONValue(encoding: $0, path: codingPath + [key]) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
    set(try value.map { try JSONValue(encoding: $0, path: codingPath + [key]) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
    set(try value.map { try JSONValue(encoding: $0, path: codingPath + [key]) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
    set(try value.map { try JSONValue(encoding: $0, path: codingPath + [key]) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
    set(try value.map { try JSONValue(encoding: $0, path: codingPath + [key]) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
    set(try value.map { try JSONValue(encoding: $0, path: codingPath + [key]) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
    set(try value.map { try JSONValue(encoding: $0, path: codingPath + [key]) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
    set(try value.map { try JSONValue(encoding: $0, path: codingPath + [key]) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
    set(try value.map { try JSONValue(encoding: $0, path: codingPath + [key]) } ?? .null, key)
  }

  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    set(try value.map { try encoder.encodeNested($0, at: keys, key) } ?? .null, key)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = ObjectBox()
    reserve(key.stringValue, .object(nested))
    return KeyedEncodingContainer(
      KeyedValueEncodingContainer<NestedKey>(
        encoder: encoder, box: nested, depth: depth, keys: keys + [key]))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let nested = ArrayBox()
    reserve(key.stringValue, .array(nested))
    return UnkeyedValueEncodingContainer(
      encoder: encoder, box: nested, depth: depth, keys: keys + [key])
  }

  mutating func superEncoder() -> any Encoder {
    superEncoder(key: JSONKey.super)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    superEncoder(key: key)
  }

  private func superEncoder(key: any CodingKey) -> any Encoder {
    let nested = ValueEncoder(codingPath: codingPath + [key])
    reserve(key.stringValue, .encoder(nested))
    return nested
  }

  /// Reserves the member's position now; its value is read when the object is finished.
  private func reserve(_ key: String, _ pending: PendingValue) {
    box.set(.null, forKey: key)
    box.later.append((key, pending))
  }
}

/// Writes the elements of an array.
struct UnkeyedValueEncodingContainer: UnkeyedEncodingContainer {
  let encoder: ValueEncoder
  let box: ArrayBox
  /// Depth of the encoder's path when this container was made.
  let depth: Int
  /// Keys from that depth down to this container, for nested containers.
  let keys: [any CodingKey]

  var codingPath: [any CodingKey] { encoder.codingPath(depth: depth, keys: keys) }
  var count: Int { box.array.count }

  mutating func encodeNil() { box.array.append(.null) }
  mutating func encode(_ value: Bool) { box.array.append(.bool(value)) }
  mutating func encode(_ value: String) { box.array.append(.string(value)) }
  mutating func encode(_ value: Double) { box.array.append(JSONValue(encoding: value)) }
  mutating func encode(_ value: Float) { box.array.append(JSONValue(encoding: value)) }
  mutating func encode(_ value: Int) { box.array.append(.int(value)) }
  mutating func encode(_ value: Int8) throws {
    box.array.append(try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)]))
  }
  mutating func encode(_ value: Int16) throws {
    box.array.append(try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)]))
  }
  mutating func encode(_ value: Int32) throws {
    box.array.append(try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)]))
  }
  mutating func encode(_ value: Int64) throws {
    box.array.append(try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)]))
  }
  mutating func encode(_ value: UInt) throws {
    box.array.append(try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)]))
  }
  mutating func encode(_ value: UInt8) throws {
    box.array.append(try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)]))
  }
  mutating func encode(_ value: UInt16) throws {
    box.array.append(try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)]))
  }
  mutating func encode(_ value: UInt32) throws {
    box.array.append(try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)]))
  }
  mutating func encode(_ value: UInt64) throws {
    box.array.append(try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)]))
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let index = JSONKey(intValue: box.array.count)
    box.array.append(try encoder.encodeNested(value, at: keys, index))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = ObjectBox()
    let index = reserve(.object(nested))
    return KeyedEncodingContainer(
      KeyedValueEncodingContainer<NestedKey>(
        encoder: encoder, box: nested, depth: depth, keys: keys + [index]))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let nested = ArrayBox()
    let index = reserve(.array(nested))
    return UnkeyedValueEncodingContainer(
      encoder: encoder, box: nested, depth: depth, keys: keys + [index])
  }

  mutating func superEncoder() -> any Encoder {
    let nested = ValueEncoder(codingPath: codingPath + [JSONKey(intValue: box.array.count)])
    _ = reserve(.encoder(nested))
    return nested
  }

  /// Reserves the element's position now; its value is read when the array is finished.
  private func reserve(_ pending: PendingValue) -> JSONKey {
    let index = box.array.count
    box.array.append(.null)
    box.later.append((index, pending))
    return JSONKey(intValue: index)
  }
}

/// Reads the members of an object.
///
/// `decodeIfPresent` treats a missing key and an explicit `null` alike, as `JSONDecoder` does;
/// every overload is implemented so that a type mismatch says "or null".
///
/// A class, not a struct: `KeyedDecodingContainer` copies the container it wraps on every call,
/// and copying one reference is cheaper than copying four.
final class KeyedValueDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: ValueDecoder
  let object: JSONObject
  /// Depth of the decoder's path when this container was made.
  let depth: Int
  /// Keys from that depth down to this container, for nested containers.
  let keys: [any CodingKey]

  init(decoder: ValueDecoder, object: JSONObject, depth: Int, keys: [any CodingKey]) {
    self.decoder = decoder
    self.object = object
    self.depth = depth
    self.keys = keys
  }

  var codingPath: [any CodingKey] { decoder.codingPath(depth: depth, keys: keys) }

  var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool {
    object.index(forKey: key.stringValue) != nil
  }

  private func value(for key: Key) throws -> JSONValue {
    guard let value = object[key.stringValue] else {
      throw DecodingFailure.missingKey(key, path: codingPath)
    }
    return value
  }

  /// The value of `key` unless it is missing or null.
  private func presentValue(for key: Key) -> JSONValue? {
    guard let value = object[key.stringValue], !value.isNull else { return nil }
    return value
  }

  private func path(_ key: Key) -> [any CodingKey] {
    codingPath + [key]
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    try value(for: key).isNull
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try ScalarDecoding.bool(from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try ScalarDecoding.string(from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try ScalarDecoding.double(from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try ScalarDecoding.float(from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try ScalarDecoding.integer(Int.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
    try ScalarDecoding.integer(Int8.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
    try ScalarDecoding.integer(
      Int16.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
    try ScalarDecoding.integer(
      Int32.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
    try ScalarDecoding.integer(
      Int64.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
    try ScalarDecoding.integer(UInt.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
    try ScalarDecoding.integer(
      UInt8.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
    try ScalarDecoding.integer(
      UInt16.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
    try ScalarDecoding.integer(
      UInt32.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
    try ScalarDecoding.integer(
      UInt64.self, from: value(for: key), allowsNull: false, path: path(key))
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decoder.decodeNested(T.self, from: value(for: key), at: keys, key, allowsNull: false)
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try presentValue(for: key).map {
      try ScalarDecoding.bool(from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try presentValue(for: key).map {
      try ScalarDecoding.string(from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try presentValue(for: key).map {
      try ScalarDecoding.double(from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try presentValue(for: key).map {
      try ScalarDecoding.float(from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(Int.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(Int8.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(Int16.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(Int32.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(Int64.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(UInt.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(UInt8.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(UInt16.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(UInt32.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try presentValue(for: key).map {
      try ScalarDecoding.integer(UInt64.self, from: $0, allowsNull: true, path: path(key))
    }
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try presentValue(for: key).map {
      try decoder.decodeNested(T.self, from: $0, at: keys, key, allowsNull: true)
    }
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let nested = try value(for: key)
    guard case .object(let object) = nested else {
      throw DecodingFailure.mismatch(
        [String: JSONValue].self, expected: "an object", found: nested, allowsNull: false,
        path: path(key))
    }
    return KeyedDecodingContainer(
      KeyedValueDecodingContainer<NestedKey>(
        decoder: decoder, object: object, depth: depth, keys: keys + [key]))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let nested = try value(for: key)
    guard case .array(let array) = nested else {
      throw DecodingFailure.mismatch(
        [JSONValue].self, expected: "an array", found: nested, allowsNull: false, path: path(key))
    }
    return UnkeyedValueDecodingContainer(
      decoder: decoder, array: array, depth: depth, keys: keys + [key])
  }

  func superDecoder() throws -> any Decoder {
    superDecoder(key: JSONKey.super)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    superDecoder(key: key)
  }

  /// A decoder for the member `key`, reading `null` when it is absent.
  private func superDecoder(key: any CodingKey) -> any Decoder {
    ValueDecoder(
      value: object[key.stringValue] ?? .null, allowsNull: false, codingPath: codingPath + [key])
  }
}

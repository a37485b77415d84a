/// Reads the members of an object in a `JSONMap`: ``KeyedValueDecodingContainer``'s
/// counterpart, with the same answers for a missing key, `null` and a wrong value.
///
/// A key is found by comparing bytes, starting after the member found last: a synthesized
/// `init(from:)` asks for its keys in declaration order, which is usually the document's, so
/// each lookup then compares one key.
final class BytesKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: BytesDecoder
  /// The object's index in the map.
  let object: Int
  /// Depth of the decoder's path when this container was made.
  let depth: Int
  /// Keys from that depth down to this container, for nested containers.
  let keys: [any CodingKey]
  /// Where the next lookup starts: the member after the one found last.
  private var hint: Int

  init(decoder: BytesDecoder, object: Int, depth: Int, keys: [any CodingKey]) {
    self.decoder = decoder
    self.object = object
    self.depth = depth
    self.keys = keys
    hint = object + 3
  }

  var codingPath: [any CodingKey] { decoder.codingPath(depth: depth, keys: keys) }

  var allKeys: [Key] {
    var result: [Key] = []
    var member = object + 3
    for _ in 0..<decoder.map.count(object) {
      if let key = Key(stringValue: decoder.string(at: member)) { result.append(key) }
      member = decoder.map.next(member + 2)
    }
    return result
  }

  /// The map index of the value of `key`, or nil.
  private func find(_ key: Key) -> Int? {
    let name = key.stringValue
    let (first, end) = (object + 3, decoder.map.next(object))
    var member = hint
    for _ in 0..<decoder.map.count(object) {
      if member == end { member = first }
      let value = member + 2
      let next = decoder.map.next(value)
      if decoder.keyMatches(member, name) {
        hint = next
        return value
      }
      member = next
    }
    return nil
  }

  func contains(_ key: Key) -> Bool {
    find(key) != nil
  }

  private func value(for key: Key) throws -> Int {
    guard let value = find(key) else {
      throw DecodingFailure.missingKey(key, path: codingPath)
    }
    return value
  }

  /// The value of `key` unless it is missing or null.
  private func presentValue(for key: Key) -> Int? {
    guard let value = find(key), decoder.map.kind(value) != .null else { return nil }
    return value
  }

  private func path(_ key: Key) -> [any CodingKey] {
    codingPath + [key]
  }

  private func scalar<T: DecodableScalar>(_ key: Key) throws -> T {
    try T.read(from: decoder.scalar(at: value(for: key)), allowsNull: false, path: path(key))
  }

  private func presentScalar<T: DecodableScalar>(_ key: Key) throws -> T? {
    guard let value = presentValue(for: key) else { return nil }
    return try T.read(from: decoder.scalar(at: value), allowsNull: true, path: path(key))
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    decoder.map.kind(try value(for: key)) == .null
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(key) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(key) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(key) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(key) }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decoder.decodeNested(T.self, at: value(for: key), keys: keys, key, allowsNull: false)
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentScalar(key) }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try presentScalar(key)
  }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try presentScalar(key)
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let value = presentValue(for: key) else { return nil }
    return try decoder.decodeNested(T.self, at: value, keys: keys, key, allowsNull: true)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let nested = try decoder.object(at: value(for: key), allowsNull: false, path: path(key))
    return KeyedDecodingContainer(
      BytesKeyedContainer<NestedKey>(
        decoder: decoder, object: nested, depth: depth, keys: keys + [key]))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let nested = try decoder.array(at: value(for: key), allowsNull: false, path: path(key))
    return BytesUnkeyedContainer(decoder: decoder, array: nested, depth: depth, keys: keys + [key])
  }

  func superDecoder() throws -> any Decoder {
    superDecoder(key: JSONKey.super)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    superDecoder(key: key)
  }

  /// A decoder for the member `key`, reading `null` when it is absent: a ``ValueDecoder`` over
  /// the member, as a class hierarchy's decoding is rare enough not to need the map.
  private func superDecoder(key: any CodingKey) -> any Decoder {
    let name = key.stringValue
    var member = object + 3
    var value = JSONValue.null
    for _ in 0..<decoder.map.count(object) {
      if decoder.keyMatches(member, name) {
        value = decoder.value(at: member + 2)
        break
      }
      member = decoder.map.next(member + 2)
    }
    return ValueDecoder(value: value, allowsNull: false, codingPath: codingPath + [key])
  }
}

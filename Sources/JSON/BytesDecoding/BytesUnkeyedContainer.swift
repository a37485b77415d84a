/// Reads the elements of an array in a `JSONMap` in order: ``UnkeyedValueDecodingContainer``'s
/// counterpart, with the same answers past the end, for `null` and for a wrong value.
struct BytesUnkeyedContainer: UnkeyedDecodingContainer {
  let decoder: BytesDecoder
  /// The array's index in the map.
  let array: Int
  /// Depth of the decoder's path when this container was made.
  let depth: Int
  /// Keys from that depth down to this container, for nested containers.
  let keys: [any CodingKey]
  private(set) var currentIndex = 0
  /// The map index of the element at `currentIndex`.
  private var element: Int

  init(decoder: BytesDecoder, array: Int, depth: Int, keys: [any CodingKey]) {
    self.decoder = decoder
    self.array = array
    self.depth = depth
    self.keys = keys
    element = array + 3
  }

  var codingPath: [any CodingKey] { decoder.codingPath(depth: depth, keys: keys) }
  var count: Int? { decoder.map.count(array) }
  var isAtEnd: Bool { currentIndex >= decoder.map.count(array) }

  /// Reads the next element with `read`, advancing only when it succeeds.
  private mutating func decodeNext<T>(
    _ type: T.Type, _ read: (Int, [any CodingKey]) throws -> T
  ) throws -> T {
    let index = JSONKey(intValue: currentIndex)
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        T.self,
        DecodingFailure.context(
          codingPath + [index], "the array has only \(decoder.map.count(array)) elements"))
    }
    let result = try read(element, codingPath + [index])
    element = decoder.map.next(element)
    currentIndex += 1
    return result
  }

  private mutating func scalar<T: DecodableScalar>() throws -> T {
    let decoder = decoder
    return try decodeNext(T.self) {
      try T.read(from: decoder.scalar(at: $0), allowsNull: false, path: $1)
    }
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, decoder.map.kind(element) == .null else { return false }
    element = decoder.map.next(element)
    currentIndex += 1
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar() }
  mutating func decode(_ type: String.Type) throws -> String { try scalar() }
  mutating func decode(_ type: Double.Type) throws -> Double { try scalar() }
  mutating func decode(_ type: Float.Type) throws -> Float { try scalar() }
  mutating func decode(_ type: Int.Type) throws -> Int { try scalar() }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar() }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar() }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar() }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar() }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar() }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar() }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar() }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar() }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar() }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let (decoder, keys, index) = (decoder, keys, JSONKey(intValue: currentIndex))
    return try decodeNext(T.self) { element, _ in
      try decoder.decodeNested(T.self, at: element, keys: keys, index, allowsNull: false)
    }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let (decoder, keys, depth) = (decoder, keys, depth)
    return try decodeNext(KeyedDecodingContainer<NestedKey>.self) { element, path in
      KeyedDecodingContainer(
        BytesKeyedContainer<NestedKey>(
          decoder: decoder, object: try decoder.object(at: element, allowsNull: false, path: path),
          depth: depth, keys: Array(path.suffix(keys.count + 1))))
    }
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let (decoder, keys, depth) = (decoder, keys, depth)
    return try decodeNext((any UnkeyedDecodingContainer).self) { element, path in
      BytesUnkeyedContainer(
        decoder: decoder, array: try decoder.array(at: element, allowsNull: false, path: path),
        depth: depth, keys: Array(path.suffix(keys.count + 1)))
    }
  }

  mutating func superDecoder() throws -> any Decoder {
    let decoder = decoder
    return try decodeNext((any Decoder).self) { element, path in
      ValueDecoder(value: decoder.value(at: element), allowsNull: false, codingPath: path)
    }
  }
}

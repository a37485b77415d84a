/// Reads the elements of an array in order.
struct UnkeyedValueDecodingContainer: UnkeyedDecodingContainer {
  let decoder: ValueDecoder
  let array: [JSONValue]
  /// Depth of the decoder's path when this container was made.
  let depth: Int
  /// Keys from that depth down to this container, for nested containers.
  let keys: [any CodingKey]
  private(set) var currentIndex = 0

  init(decoder: ValueDecoder, array: [JSONValue], depth: Int, keys: [any CodingKey]) {
    self.decoder = decoder
    self.array = array
    self.depth = depth
    self.keys = keys
  }

  var codingPath: [any CodingKey] { decoder.codingPath(depth: depth, keys: keys) }
  var count: Int? { array.count }
  var isAtEnd: Bool { currentIndex >= array.count }

  /// Reads the next element with `read`, advancing only when it succeeds.
  private mutating func decodeNext<T>(
    _ type: T.Type, _ read: (JSONValue, [any CodingKey]) throws -> T
  ) throws -> T {
    let index = JSONKey(intValue: currentIndex)
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        T.self,
        DecodingFailure.context(codingPath + [index], "the array has only \(array.count) elements"))
    }
    let result = try read(array[currentIndex], codingPath + [index])
    currentIndex += 1
    return result
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, array[currentIndex].isNull else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool {
    try decodeNext(Bool.self) { try ScalarDecoding.bool(from: $0, allowsNull: false, path: $1) }
  }

  mutating func decode(_ type: String.Type) throws -> String {
    try decodeNext(String.self) { try ScalarDecoding.string(from: $0, allowsNull: false, path: $1) }
  }

  mutating func decode(_ type: Double.Type) throws -> Double {
    try decodeNext(Double.self) { try ScalarDecoding.double(from: $0, allowsNull: false, path: $1) }
  }

  mutating func decode(_ type: Float.Type) throws -> Float {
    try decodeNext(Float.self) { try ScalarDecoding.float(from: $0, allowsNull: false, path: $1) }
  }

  mutating func decode(_ type: Int.Type) throws -> Int {
    try decodeNext(Int.self) {
      try ScalarDecoding.integer(Int.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode(_ type: Int8.Type) throws -> Int8 {
    try decodeNext(Int8.self) {
      try ScalarDecoding.integer(Int8.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode(_ type: Int16.Type) throws -> Int16 {
    try decodeNext(Int16.self) {
      try ScalarDecoding.integer(Int16.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode(_ type: Int32.Type) throws -> Int32 {
    try decodeNext(Int32.self) {
      try ScalarDecoding.integer(Int32.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode(_ type: Int64.Type) throws -> Int64 {
    try decodeNext(Int64.self) {
      try ScalarDecoding.integer(Int64.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode(_ type: UInt.Type) throws -> UInt {
    try decodeNext(UInt.self) {
      try ScalarDecoding.integer(UInt.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
    try decodeNext(UInt8.self) {
      try ScalarDecoding.integer(UInt8.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
    try decodeNext(UInt16.self) {
      try ScalarDecoding.integer(UInt16.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
    try decodeNext(UInt32.self) {
      try ScalarDecoding.integer(UInt32.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
    try decodeNext(UInt64.self) {
      try ScalarDecoding.integer(UInt64.self, from: $0, allowsNull: false, path: $1)
    }
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let (decoder, keys, index) = (decoder, keys, JSONKey(intValue: currentIndex))
    return try decodeNext(T.self) { element, _ in
      try decoder.decodeNested(T.self, from: element, at: keys, index, allowsNull: false)
    }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let (decoder, keys, depth) = (decoder, keys, depth)
    return try decodeNext(KeyedDecodingContainer<NestedKey>.self) { element, path in
      guard case .object(let object) = element else {
        throw DecodingFailure.mismatch(
          [String: JSONValue].self, expected: "an object", found: element, allowsNull: false,
          path: path)
      }
      return KeyedDecodingContainer(
        KeyedValueDecodingContainer<NestedKey>(
          decoder: decoder, object: object, depth: depth, keys: Array(path.suffix(keys.count + 1))))
    }
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let (decoder, keys, depth) = (decoder, keys, depth)
    return try decodeNext((any UnkeyedDecodingContainer).self) { element, path in
      guard case .array(let array) = element else {
        throw DecodingFailure.mismatch(
          [JSONValue].self, expected: "an array", found: element, allowsNull: false, path: path)
      }
      return UnkeyedValueDecodingContainer(
        decoder: decoder, array: array, depth: depth, keys: Array(path.suffix(keys.count + 1)))
    }
  }

  mutating func superDecoder() throws -> any Decoder {
    try decodeNext((any Decoder).self) { element, path in
      ValueDecoder(value: element, allowsNull: false, codingPath: path)
    }
  }
}

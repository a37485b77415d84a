/// What a single-value container needs of the decoder that made it.
protocol CurrentValueDecoder: AnyObject {
  var codingPath: [any CodingKey] { get }
  /// Decodes the value the decoder is at.
  func decodeCurrent<T: Decodable>(_ type: T.Type) throws -> T
}

extension ValueDecoder: CurrentValueDecoder {}
extension BytesDecoder: CurrentValueDecoder {}

/// Reads a value that is one scalar, or hands it on to a nested type.
struct SingleValueDecodingContainerImpl<Decoder: CurrentValueDecoder>: SingleValueDecodingContainer
{
  let decoder: Decoder
  let value: JSONValue
  let allowsNull: Bool

  var codingPath: [any CodingKey] { decoder.codingPath }

  func decodeNil() -> Bool {
    value.isNull
  }

  func decode(_ type: Bool.Type) throws -> Bool {
    try ScalarDecoding.bool(from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: String.Type) throws -> String {
    try ScalarDecoding.string(from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: Double.Type) throws -> Double {
    try ScalarDecoding.double(from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: Float.Type) throws -> Float {
    try ScalarDecoding.float(from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: Int.Type) throws -> Int {
    try ScalarDecoding.integer(Int.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: Int8.Type) throws -> Int8 {
    try ScalarDecoding.integer(Int8.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: Int16.Type) throws -> Int16 {
    try ScalarDecoding.integer(Int16.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: Int32.Type) throws -> Int32 {
    try ScalarDecoding.integer(Int32.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: Int64.Type) throws -> Int64 {
    try ScalarDecoding.integer(Int64.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: UInt.Type) throws -> UInt {
    try ScalarDecoding.integer(UInt.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: UInt8.Type) throws -> UInt8 {
    try ScalarDecoding.integer(UInt8.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: UInt16.Type) throws -> UInt16 {
    try ScalarDecoding.integer(UInt16.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: UInt32.Type) throws -> UInt32 {
    try ScalarDecoding.integer(UInt32.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode(_ type: UInt64.Type) throws -> UInt64 {
    try ScalarDecoding.integer(UInt64.self, from: value, allowsNull: allowsNull, path: codingPath)
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decoder.decodeCurrent(T.self)
  }
}

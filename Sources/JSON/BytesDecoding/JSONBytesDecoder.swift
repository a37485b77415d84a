/// Decodes `Decodable` values straight from JSON bytes: what `JSONParser.parse` followed by
/// ``JSONValueDecoder`` gives, the same values and the same errors, without building the
/// ``JSONValue`` tree in between.
///
/// A document that does not parse throws the ``JSONParseError`` the parser throws; one that
/// parses but does not fit `T` throws the `DecodingError` ``JSONValueDecoder`` throws. The
/// document is checked whole before anything is decoded (see `JSONMap`), so the first kind of
/// error always wins, as with the two steps.
///
/// ```swift
/// let book = try JSONBytesDecoder().decode(Book.self, from: message.bytes)
/// ```
public struct JSONBytesDecoder: Sendable {
  public let maxDepth: Int

  public init(maxDepth: Int = JSONParser.defaultMaxDepth) {
    self.maxDepth = maxDepth
  }

  public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
    guard let base = bytes.baseAddress, !bytes.isEmpty else {
      throw JSONParseError(.invalidJSON, "unexpected end of input", at: 0)
    }
    let pointer = base.assumingMemoryBound(to: UInt8.self)
    let map = try JSONMap(bytes: pointer, count: bytes.count, maxDepth: maxDepth)
    let decoder = BytesDecoder(bytes: pointer, count: bytes.count, map: map)
    if let optional = T.self as? any OptionalDecodable.Type {
      return try optional.decodeOptional(from: decoder) as! T
    }
    return try decoder.decodeCurrent(T.self)
  }

  public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    try bytes.withUnsafeBytes { try decode(T.self, from: $0) }
  }
}

/// A strict RFC 8259 parser.
///
/// It accepts exactly one JSON value with optional whitespace around it: no comments, no
/// trailing commas, no NaN or Infinity, no control characters or invalid UTF-8 inside strings,
/// no lone surrogates in `\u` escapes, and no repeated key within one object (RFC 8259 leaves
/// duplicates undefined; a protocol that rejects them cannot be fooled by two readers picking
/// different copies).
public enum JSONParser {
  /// The nesting limit, deep enough for any real state and shallow enough that recursion on a
  /// hostile line cannot exhaust the stack.
  public static let defaultMaxDepth = 64

  /// Parses one JSON document from UTF-8 bytes.
  public static func parse(
    _ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth
  ) throws(JSONParseError) -> JSONValue {
    guard let base = bytes.baseAddress, !bytes.isEmpty else {
      throw JSONParseError(.invalidJSON, "unexpected end of input", at: 0)
    }
    var parser = Parser(
      bytes: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, maxDepth: maxDepth)
    return try parser.parseDocument()
  }

  /// Parses the value that starts at `position` in `bytes`, after any whitespace, and moves
  /// `position` just past it: for a reader that takes a line apart itself and leaves one
  /// member's value to this parser. `maxDepth` counts from that value.
  public static func parseValue(
    _ bytes: UnsafeRawBufferPointer, at position: inout Int, maxDepth: Int
  ) throws(JSONParseError) -> JSONValue {
    guard let base = bytes.baseAddress, position < bytes.count else {
      throw JSONParseError(.invalidJSON, "unexpected end of input", at: position)
    }
    var parser = Parser(
      bytes: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, maxDepth: maxDepth)
    parser.position = position
    parser.skipWhitespace()
    let value = try parser.parseValue()
    position = parser.position
    return value
  }

  public static func parse(
    _ bytes: [UInt8], maxDepth: Int = defaultMaxDepth
  ) throws(JSONParseError) -> JSONValue {
    try bytes.withUnsafeBytes { buffer in
      Result { () throws(JSONParseError) in try parse(buffer, maxDepth: maxDepth) }
    }.get()
  }

  public static func parse(
    _ text: String, maxDepth: Int = defaultMaxDepth
  ) throws(JSONParseError) -> JSONValue {
    var text = text
    return try text.withUTF8 { buffer in
      Result { () throws(JSONParseError) in
        try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth)
      }
    }.get()
  }
}

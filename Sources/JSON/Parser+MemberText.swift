extension JSONParser {
  /// The bytes of the value of member `key` of the object `bytes` holds, exactly as written;
  /// nil when the document is not an object, has no such member, or does not parse. For what
  /// parsing loses: a number's spelling (`1E2` and `100` parse alike), which a protocol echoing
  /// a request's id must give back as the host wrote it.
  ///
  /// ```swift
  /// JSONParser.memberText("id", in: #"{"id": 1E2, "cmd": "quit"}"#)  // the bytes of 1E2
  /// ```
  public static func memberText(
    _ key: String, in bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth
  ) -> UnsafeRawBufferPointer? {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
    var parser = Parser(
      bytes: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, maxDepth: maxDepth)
    guard let range = try? parser.memberRange(key) else { return nil }
    return UnsafeRawBufferPointer(rebasing: bytes[range])
  }
}

extension Parser {
  /// Walks the top-level object's members, parsing each value only to find where it ends.
  mutating func memberRange(_ key: String) throws(JSONParseError) -> Range<Int>? {
    skipWhitespace()
    guard current == UInt8(ascii: "{") else { return nil }
    position += 1
    while true {
      skipWhitespace()
      guard current == UInt8(ascii: "\"") else { return nil }
      let name = try parseString()
      skipWhitespace()
      guard current == UInt8(ascii: ":") else { return nil }
      position += 1
      skipWhitespace()
      let start = position
      _ = try parseValue()
      if name == key { return start..<position }
      skipWhitespace()
      guard current == UInt8(ascii: ",") else { return nil }
      position += 1
    }
  }
}

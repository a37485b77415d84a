/// String literals: UTF-8 validation and escapes.
extension Parser {
  /// Parses the string whose opening quote is under the cursor.
  ///
  /// The common string has no escapes: it is validated in place and becomes a `String` in one
  /// step from the input bytes. The first backslash switches to copying into `scratch`.
  mutating func parseString() throws(JSONParseError) -> String {
    guard let content = try scanString() else {
      return String(decoding: scratch, as: UTF8.self)
    }
    return String(
      decoding: UnsafeBufferPointer(start: bytes + content.lowerBound, count: content.count),
      as: UTF8.self)
  }

  /// Validates the string whose opening quote is under the cursor and moves past it: the range
  /// of its content when it has no escapes, which needs no copy; nil when it has, its decoded
  /// bytes then in `scratch`.
  mutating func scanString() throws(JSONParseError) -> Range<Int>? {
    let openingQuote = position
    position += 1
    let contentStart = position
    while true {
      skipPlainASCII()
      guard position < count else { break }
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        position += 1
        return contentStart..<position - 1
      } else if byte == UInt8(ascii: "\\") {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(
          contentsOf: UnsafeBufferPointer(
            start: bytes + contentStart, count: position - contentStart))
        try decodeEscapedRemainder(openingQuote: openingQuote)
        return nil
      } else if byte < 0x20 {
        throw controlCharacterError()
      } else {
        position += try multibyteSequenceLength()
      }
    }
    throw JSONParseError(.invalidJSON, "unterminated string", at: openingQuote)
  }

  /// Advances over bytes that need no attention inside a string: ASCII other than `"`, `\\`
  /// and control characters.
  private mutating func skipPlainASCII() {
    position = ByteScan.plainASCIIEnd(bytes, from: position, count: count)
  }

  /// Continues a string at its first backslash, decoding into `scratch`.
  private mutating func decodeEscapedRemainder(openingQuote: Int) throws(JSONParseError) {
    while position < count {
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        position += 1
        return
      } else if byte == UInt8(ascii: "\\") {
        try appendEscape()
      } else if byte < 0x20 {
        throw controlCharacterError()
      } else if byte < 0x80 {
        scratch.append(byte)
        position += 1
      } else {
        let length = try multibyteSequenceLength()
        scratch.append(contentsOf: UnsafeBufferPointer(start: bytes + position, count: length))
        position += length
      }
    }
    throw JSONParseError(.invalidJSON, "unterminated string", at: openingQuote)
  }

  /// Decodes the escape sequence under the cursor into `scratch`.
  private mutating func appendEscape() throws(JSONParseError) {
    let escapeStart = position
    guard position + 1 < count else {
      throw JSONParseError(.invalidJSON, "unterminated string", at: escapeStart)
    }
    let decoded: UInt8
    switch bytes[position + 1] {
    case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
    case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
    case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
    case UInt8(ascii: "b"): decoded = 0x08
    case UInt8(ascii: "f"): decoded = 0x0C
    case UInt8(ascii: "n"): decoded = 0x0A
    case UInt8(ascii: "r"): decoded = 0x0D
    case UInt8(ascii: "t"): decoded = 0x09
    case UInt8(ascii: "u"):
      try appendUnicodeEscape()
      return
    default:
      throw JSONParseError(.invalidJSON, "invalid escape sequence", at: escapeStart)
    }
    scratch.append(decoded)
    position += 2
  }

  /// Decodes `\uXXXX`, or a `\uD8xx\uDCxx` surrogate pair, into UTF-8.
  private mutating func appendUnicodeEscape() throws(JSONParseError) {
    let escapeStart = position
    let unit = try hexQuad(at: position + 2)
    position += 6
    var scalarValue = UInt32(unit)
    if (0xDC00...0xDFFF).contains(unit) {
      throw JSONParseError(.invalidJSON, "lone low surrogate in \\u escape", at: escapeStart)
    }
    if (0xD800...0xDBFF).contains(unit) {
      guard position + 1 < count, bytes[position] == UInt8(ascii: "\\"),
        bytes[position + 1] == UInt8(ascii: "u")
      else {
        throw JSONParseError(.invalidJSON, "lone high surrogate in \\u escape", at: escapeStart)
      }
      let low = try hexQuad(at: position + 2)
      guard (0xDC00...0xDFFF).contains(low) else {
        throw JSONParseError(.invalidJSON, "lone high surrogate in \\u escape", at: escapeStart)
      }
      position += 6
      scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
    }
    // Surrogates were handled above, so this is a valid scalar.
    scratch.append(contentsOf: UTF8.encode(Unicode.Scalar(scalarValue)!)!)
  }

  /// The value of four hex digits starting at `offset`.
  private func hexQuad(at offset: Int) throws(JSONParseError) -> UInt16 {
    guard offset + 4 <= count else {
      throw JSONParseError(
        .invalidJSON, "invalid \\u escape: expected four hex digits", at: offset - 2)
    }
    var value: UInt16 = 0
    for digitOffset in offset..<offset + 4 {
      let byte = bytes[digitOffset]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default:
        throw JSONParseError(
          .invalidJSON, "invalid \\u escape: expected four hex digits", at: offset - 2)
      }
      value = value << 4 | UInt16(digit)
    }
    return value
  }

  /// The length of the well-formed UTF-8 sequence whose lead byte (>= 0x80) is under the cursor.
  ///
  /// Follows Unicode's table of well-formed byte sequences, which rules out overlong forms,
  /// UTF-16 surrogates encoded as UTF-8, and anything above U+10FFFF.
  private func multibyteSequenceLength() throws(JSONParseError) -> Int {
    let lead = bytes[position]
    var secondRange: ClosedRange<UInt8> = 0x80...0xBF
    let length: Int
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      secondRange = 0xA0...0xBF
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      secondRange = 0x80...0x9F
    case 0xF0:
      length = 4
      secondRange = 0x90...0xBF
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      secondRange = 0x80...0x8F
    default:
      throw JSONParseError(.invalidUTF8, "invalid UTF-8 lead byte", at: position)
    }
    guard position + length <= count, secondRange.contains(bytes[position + 1]) else {
      throw JSONParseError(.invalidUTF8, "invalid UTF-8 sequence", at: position)
    }
    for offset in 2..<length where bytes[position + offset] & 0xC0 != 0x80 {
      throw JSONParseError(.invalidUTF8, "invalid UTF-8 sequence", at: position)
    }
    return length
  }

  private func controlCharacterError() -> JSONParseError {
    let hex = String(bytes[position], radix: 16, uppercase: true)
    let code = String(repeating: "0", count: 4 - hex.count) + hex
    return JSONParseError(
      .invalidJSON, "unescaped control character U+\(code) in string", at: position)
  }
}

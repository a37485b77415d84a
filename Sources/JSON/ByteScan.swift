/// Eight-bytes-at-a-time tests for the bytes that string parsing and escaping care about.
///
/// Most strings are plain ASCII without quotes, backslashes or control characters; testing a
/// whole 64-bit word per step (the classic "has zero byte" bit trick) skips them several times
/// faster than a byte loop. Each test is exact: nonzero if and only if some byte matches.
@_spi(Hosting)
public enum ByteScan {
  private static let ones: UInt64 = 0x0101_0101_0101_0101
  private static let highBits: UInt64 = 0x8080_8080_8080_8080

  /// Nonzero when some byte of `word` is below 0x20, a `"` or a `\`.
  @inline(__always)
  static func needsEscape(_ word: UInt64) -> UInt64 {
    let control = (word &- ones &* 0x20) & ~word & highBits
    return control | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C))
  }

  /// Nonzero when some byte of `word` needs escaping or is not ASCII.
  @inline(__always)
  static func needsAttention(_ word: UInt64) -> UInt64 {
    needsEscape(word) | (word & highBits)
  }

  @inline(__always)
  private static func hasZeroByte(_ word: UInt64) -> UInt64 {
    (word &- ones) & ~word & highBits
  }

  /// Whether any of `bytes` needs escaping in a JSON string.
  static func containsEscapable(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    var position = 0
    while position + 8 <= bytes.count {
      if needsEscape(UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)) != 0 {
        return true
      }
      position += 8
    }
    while position < bytes.count {
      let byte = base[position]
      if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
        return true
      }
      position += 1
    }
    return false
  }

  /// The position of the first byte at or after `start` that a JSON string cannot hold as it
  /// is (a `"`, a `\\` or a control character) or that is not ASCII; `count` if there is none.
  /// Whole words first, then single bytes.
  public static func plainASCIIEnd(_ bytes: UnsafePointer<UInt8>, from start: Int, count: Int)
    -> Int
  {
    var position = start
    while position + 8 <= count {
      // Read little-endian, the first byte is the lowest. A flag can be wrong only above a
      // byte that truly matches (a borrow runs upwards), so the lowest flag is the first match.
      let word = UInt64(
        littleEndian: UnsafeRawPointer(bytes + position).loadUnaligned(as: UInt64.self))
      let flags = needsAttention(word)
      if flags != 0 { return position + flags.trailingZeroBitCount / 8 }
      position += 8
    }
    while position < count {
      let byte = bytes[position]
      guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else {
        return position
      }
      position += 1
    }
    return position
  }
}

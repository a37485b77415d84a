/// Checks UTF-8 (RFC 3629) as it arrives in pieces, so that a text message can be refused at its
/// first bad byte rather than once it is complete (RFC 6455 8.1 asks a client to fail the
/// connection as soon as it sees invalid UTF-8).
///
///     var validator = UTF8Validator()
///     validator.consume([0xE2, 0x82])  // true: the start of "€"
///     validator.isAtCharacterBoundary  // false
///     validator.consume([0xAC])        // true, and now at a boundary
///     validator.consume([0xC0, 0xAF])  // false: an overlong "/"
struct UTF8Validator {
  /// Continuation bytes still expected for the current character.
  private var pending = 0
  /// Where the next continuation byte must lie. Narrower than 80…BF right after E0, ED, F0 and
  /// F4: that is what refuses overlong forms, surrogates and code points above U+10FFFF.
  private var lowest: UInt8 = 0x80
  private var highest: UInt8 = 0xBF

  /// Whether the bytes so far end between characters.
  var isAtCharacterBoundary: Bool { pending == 0 }

  /// Adds `bytes`; false at the first byte that cannot continue valid UTF-8 (the validator must
  /// not be used after that).
  mutating func consume(_ bytes: some Collection<UInt8>) -> Bool {
    if let result = bytes.withContiguousStorageIfAvailable({ consume(UnsafeRawBufferPointer($0)) })
    {
      return result
    }
    return consume(Array(bytes))
  }

  mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    let count = bytes.count
    while index < count {
      // Text is mostly ASCII: eight bytes at a time while between characters.
      if pending == 0 && count - index >= 8
        && bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080
          == 0
      {
        index += 8
        continue
      }
      let byte = bytes[index]
      index += 1
      if pending > 0 {
        guard byte >= lowest && byte <= highest else { return false }
        pending -= 1
        (lowest, highest) = (0x80, 0xBF)
        continue
      }
      switch byte {
      case 0x00...0x7F: continue
      case 0xC2...0xDF: pending = 1
      case 0xE0: (pending, lowest) = (2, 0xA0)
      case 0xED: (pending, highest) = (2, 0x9F)
      case 0xE1...0xEF: pending = 2
      case 0xF0: (pending, lowest) = (3, 0x90)
      case 0xF4: (pending, highest) = (3, 0x8F)
      case 0xF1...0xF3: pending = 3
      default: return false
      }
    }
    return true
  }
}

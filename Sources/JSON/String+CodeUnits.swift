/// String identity as JSON sees it.
///
/// Swift's `==` on strings is Unicode canonical equivalence: `"é"` (U+00E9) equals `"e\u{301}"`.
/// JSON compares strings code point by code point, like every other JSON implementation and
/// the JSON Patch libraries that replay our patches, so object keys and string values are
/// compared by their UTF-8 bytes. That is also faster: no normalization, and two keys of
/// different lengths differ after one comparison.
extension String {
  public func hasSameUTF8(as other: String) -> Bool {
    // A string value is its two words: equal words mean equal contents (the same small-string
    // payload, or the same storage). This catches keys from string literals and copies at once.
    if unsafeBitCast(self, to: (UInt64, UInt64).self)
      == unsafeBitCast(other, to: (UInt64, UInt64).self)
    {
      return true
    }
    let (lhs, rhs) = (utf8, other.utf8)
    guard lhs.count == rhs.count else { return false }
    let compared = lhs.withContiguousStorageIfAvailable { lhsBytes in
      rhs.withContiguousStorageIfAvailable { rhsBytes in Self.bytesEqual(lhsBytes, rhsBytes) }
    }
    return (compared ?? nil) ?? lhs.elementsEqual(rhs)
  }

  /// Compares two buffers of equal length a word at a time.
  static func bytesEqual(
    _ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    guard let lhsBase = lhs.baseAddress, let rhsBase = rhs.baseAddress else { return true }
    let count = lhs.count
    var offset = 0
    while offset + 8 <= count {
      guard
        UnsafeRawPointer(lhsBase + offset).loadUnaligned(as: UInt64.self)
          == UnsafeRawPointer(rhsBase + offset).loadUnaligned(as: UInt64.self)
      else { return false }
      offset += 8
    }
    while offset < count {
      guard lhsBase[offset] == rhsBase[offset] else { return false }
      offset += 1
    }
    return true
  }

  func hashUTF8(into hasher: inout Hasher) {
    let hashed: Void? = utf8.withContiguousStorageIfAvailable {
      hasher.combine(bytes: UnsafeRawBufferPointer($0))
    }
    if hashed == nil {
      for byte in utf8 {
        hasher.combine(byte)
      }
    }
    hasher.combine(utf8.count)
  }
}

/// A `String` dictionary key with JSON's notion of identity.
struct UTF8Key: Hashable {
  let string: String

  static func == (lhs: UTF8Key, rhs: UTF8Key) -> Bool {
    lhs.string.hasSameUTF8(as: rhs.string)
  }

  func hash(into hasher: inout Hasher) {
    string.hashUTF8(into: &hasher)
  }
}

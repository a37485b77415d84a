/// Low-level JSON output into a byte buffer.
///
/// The protocol layer writes its output lines by hand with these, without building a
/// ``JSONValue`` for the envelope. Each helper sizes its output first and appends it to the
/// caller's buffer in one step, because every separate `append` pays for a uniqueness and
/// capacity check.
@_spi(Hosting)
public enum JSONWriter {
  /// Appends `string` as a quoted JSON string. `"` and `\` are escaped, as is every control
  /// character below U+0020 (the short forms where JSON has one, `\u00XX` otherwise); all other
  /// characters, non-ASCII included, pass through as UTF-8.
  public static func writeString(_ string: String, into buffer: inout [UInt8]) {
    writeQuoted(string, before: nil, after: nil, into: &buffer)
  }

  /// Appends an object key with its colon, preceded by a comma unless it is the first member:
  /// `,"key":`.
  public static func writeKey(_ key: String, isFirst: Bool, into buffer: inout [UInt8]) {
    writeQuoted(
      key, before: isFirst ? nil : UInt8(ascii: ","), after: UInt8(ascii: ":"), into: &buffer)
  }

  /// Appends the decimal digits of `value`, without going through `String`.
  public static func writeInt(_ value: Int, into buffer: inout [UInt8]) {
    // The magnitude, so that Int.min needs no special case.
    var remaining = value.magnitude
    var length = value < 0 ? 2 : 1
    var threshold: UInt = 10
    while remaining >= threshold, length < 20 {
      length += 1
      threshold &*= 10
    }
    buffer.append(addingCapacity: length) { span in
      span.withUnsafeMutableBufferPointer { output, initializedCount in
        if value < 0 {
          output[0] = UInt8(ascii: "-")
        }
        var position = length
        repeat {
          position -= 1
          let (quotient, digit) = remaining.quotientAndRemainder(dividingBy: 10)
          output[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: digit)
          remaining = quotient
        } while remaining != 0
        initializedCount = length
      }
    }
  }

  /// Appends `value` in the shortest form that reads back as the same `Double`.
  ///
  /// Swift's `description` is that form and always valid JSON for finite values (`0.1`,
  /// `1e-05`, `1.0`, `5e-324`); JSON has no NaN or infinity, so those become `null`, as in
  /// JavaScript's `JSON.stringify`. The digits are written by the function behind
  /// `description` straight into the buffer: a `String` per number was an allocation and a
  /// copy for every price of an order book.
  public static func writeDouble(_ value: Double, into buffer: inout [UInt8]) {
    guard value.isFinite else {
      buffer.append(contentsOf: "null".utf8)
      return
    }
    buffer.append(addingCapacity: maxDoubleLength) { span in
      span.withUnsafeMutableBufferPointer { output, initializedCount in
        let start = output.baseAddress.unsafelyUnwrapped
        // The function leaves the zeros it writes to the buffer as it finds them: the
        // standard library hands it a buffer filled with "0" (the writer's test holds every
        // kind of double to `description`).
        start.initialize(repeating: UInt8(ascii: "0"), count: maxDoubleLength)
        initializedCount = Int(float64ToString(start, UInt(maxDoubleLength), value, false))
      }
    }
  }

  /// The buffer `description` gives the function: the longest form, `-2.2250738585072014e-308`,
  /// has 24 characters.
  private static let maxDoubleLength = 32

  private static func writeQuoted(
    _ string: String, before: UInt8?, after: UInt8?, into buffer: inout [UInt8]
  ) {
    let written: Void? = string.utf8.withContiguousStorageIfAvailable {
      writeQuoted(utf8: $0, before: before, after: after, into: &buffer)
    }
    if written == nil {
      var contiguous = string
      contiguous.withUTF8 { writeQuoted(utf8: $0, before: before, after: after, into: &buffer) }
    }
  }

  private static func writeQuoted(
    utf8 source: UnsafeBufferPointer<UInt8>, before: UInt8?, after: UInt8?,
    into buffer: inout [UInt8]
  ) {
    var escapedLength = source.count
    if ByteScan.containsEscapable(source) {
      for byte in source where needsEscape(byte) {
        escapedLength += byte < 0x20 && shortEscape(byte) == nil ? 5 : 1
      }
    }
    let total = escapedLength + 2 + (before == nil ? 0 : 1) + (after == nil ? 0 : 1)
    buffer.append(addingCapacity: total) { span in
      span.withUnsafeMutableBufferPointer { output, initializedCount in
        var position = 0
        func put(_ byte: UInt8) {
          output[position] = byte
          position += 1
        }
        if let before {
          put(before)
        }
        put(UInt8(ascii: "\""))
        if escapedLength == source.count {
          if let target = output.baseAddress, let bytes = source.baseAddress {
            (target + position).initialize(from: bytes, count: source.count)
          }
          position += source.count
        } else {
          for byte in source {
            guard needsEscape(byte) else {
              put(byte)
              continue
            }
            put(UInt8(ascii: "\\"))
            if let short = shortEscape(byte) {
              put(short)
            } else {
              let hexDigits: StaticString = "0123456789abcdef"
              put(UInt8(ascii: "u"))
              put(UInt8(ascii: "0"))
              put(UInt8(ascii: "0"))
              put(hexDigits.utf8Start[Int(byte >> 4)])
              put(hexDigits.utf8Start[Int(byte & 0xF)])
            }
          }
        }
        put(UInt8(ascii: "\""))
        if let after {
          put(after)
        }
        initializedCount = position
      }
    }
  }

  @inline(__always)
  private static func needsEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
  }

  /// The letter after the backslash for characters with a two-character escape.
  private static func shortEscape(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
    case 0x08: UInt8(ascii: "b")
    case 0x09: UInt8(ascii: "t")
    case 0x0A: UInt8(ascii: "n")
    case 0x0C: UInt8(ascii: "f")
    case 0x0D: UInt8(ascii: "r")
    default: nil
    }
  }
}

/// The standard library's shortest round-trip formatting of a `Double`, as `description` calls
/// it (`_float64ToStringImpl`; a symbol of its stable ABI, which inlinable code references):
/// writes at most `length` bytes, returns how many it wrote. `debug` false is `description`'s
/// form.
@_silgen_name("swift_float64ToString")
private func float64ToString(
  _ buffer: UnsafeMutablePointer<UInt8>, _ length: UInt, _ value: Double, _ debug: Bool
) -> UInt64

/// The key of one instance of a store: `{"store":"todos","instance":"user-42",…}`.
///
/// A store runs as many instances as hosts name, each with its own state and effects; a line
/// without `"instance"` addresses the store's default instance. A key is a non-empty string of
/// at most ``maxBytes`` bytes of UTF-8 with no control character, so that it prints as it is in
/// logs, file names and error messages.
///
/// ```swift
/// let key = try InstanceKey(validating: "user-42")
/// ```
@_spi(Hosting)
public struct InstanceKey: Sendable, Hashable, Comparable, CustomStringConvertible {
  public let value: String

  /// The longest key, in bytes of UTF-8.
  public static let maxBytes = 256

  /// Checks `value`; the error says what is wrong with it, naming it as the message's `member`.
  public init(validating value: String, member: String = "instance") throws(ProtocolError) {
    if let problem = Self.problem(with: value) {
      throw ProtocolError(.invalidMessage, "\"\(member)\" \(problem)")
    }
    self.value = value
  }

  /// A key read from a line's bytes that the compact reader already knows to be plain ASCII
  /// (no quote, backslash or control character).
  init?(plainASCII bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty, bytes.count <= Self.maxBytes, !bytes.contains(0x7F) else { return nil }
    value = String(decoding: bytes, as: UTF8.self)
  }

  private static func problem(with value: String) -> String? {
    let utf8 = value.utf8
    if utf8.isEmpty { return "must not be empty" }
    if utf8.count > maxBytes {
      return "must be at most \(maxBytes) bytes of UTF-8, got \(utf8.count)"
    }
    let scalars = value.unicodeScalars
    if let control = scalars.firstIndex(where: isControl) {
      return "must not contain control characters, got U+\(hex(scalars[control].value)) at byte "
        + "\(utf8.distance(from: utf8.startIndex, to: control))"
    }
    return nil
  }

  /// C0, DEL and C1: the characters a terminal or a log would not print as themselves.
  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  public var description: String { value }

  /// Keys are listed in the order of their UTF-8 bytes, which is what `after` pages through.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.value.utf8.lexicographicallyPrecedes(rhs.value.utf8)
  }
}

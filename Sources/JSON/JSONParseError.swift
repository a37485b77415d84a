/// Why a document was rejected, and where.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Kind: Sendable, Hashable {
    /// The text breaks the JSON grammar (RFC 8259), or an object repeats a key.
    case invalidJSON
    /// A string holds bytes that are not well-formed UTF-8.
    case invalidUTF8
    /// Arrays and objects nest deeper than the parser's limit.
    case tooDeep
    /// A number is too large for a `Double`.
    case numberOutOfRange
  }

  public let kind: Kind
  /// The byte offset in the input where the problem starts.
  public let offset: Int
  /// A short sentence for people, ending with the offset: "expected ':' after object key at
  /// byte 12".
  public let message: String

  init(_ kind: Kind, _ problem: String, at offset: Int) {
    self.kind = kind
    self.offset = offset
    self.message = "\(problem) at byte \(offset)"
  }

  public var description: String { message }
}

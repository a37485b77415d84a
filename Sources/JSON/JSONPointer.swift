/// An RFC 6901 JSON Pointer: the path of a value inside a document, such as `/favorites/0`.
///
/// In the text form each reference token follows a `/`, with `~` written `~0` and `/` written
/// `~1`; the empty pointer names the whole document.
public struct JSONPointer: Sendable, Hashable {
  /// The unescaped reference tokens, outermost first.
  public var tokens: [String]

  public init(tokens: [String]) {
    self.tokens = tokens
  }

  /// Parses the text form.
  public init(_ text: String) throws(JSONPointerError) {
    guard !text.isEmpty else {
      tokens = []
      return
    }
    guard text.utf8.first == UInt8(ascii: "/") else {
      throw JSONPointerError(pointer: text, problem: "does not start with '/'")
    }
    var tokens: [String] = []
    for escaped in text.utf8.dropFirst().split(
      separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    {
      guard let token = Self.unescape(Substring(escaped)) else {
        throw JSONPointerError(pointer: text, problem: "has '~' not followed by '0' or '1'")
      }
      tokens.append(token)
    }
    self.tokens = tokens
  }

  /// Whether this pointer names the whole document.
  public var isRoot: Bool { tokens.isEmpty }

  /// The pointer to the value that contains this one; nil for the root.
  public var parent: JSONPointer? {
    isRoot ? nil : JSONPointer(tokens: Array(tokens.dropLast()))
  }

  /// Whether `self` names a value strictly inside the value that `other` names.
  public func isStrictlyInside(_ other: JSONPointer) -> Bool {
    tokens.count > other.tokens.count && tokens.starts(with: other.tokens)
  }

  /// Writes a token in its escaped form: `~` as `~0`, `/` as `~1`.
  public static func escape(_ token: String) -> String {
    guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
      return token
    }
    var escaped = ""
    for character in token.unicodeScalars {
      switch character {
      case "~": escaped += "~0"
      case "/": escaped += "~1"
      default: escaped.unicodeScalars.append(character)
      }
    }
    return escaped
  }

  /// Reads an escaped token; nil when a `~` is not followed by `0` or `1`.
  public static func unescape(_ escaped: Substring) -> String? {
    guard escaped.utf8.contains(UInt8(ascii: "~")) else {
      return String(escaped)
    }
    var token = ""
    var afterTilde = false
    for character in escaped.unicodeScalars {
      if afterTilde {
        switch character {
        case "0": token += "~"
        case "1": token += "/"
        default: return nil
        }
        afterTilde = false
      } else if character == "~" {
        afterTilde = true
      } else {
        token.unicodeScalars.append(character)
      }
    }
    return afterTilde ? nil : token
  }
}

extension JSONPointer: CustomStringConvertible {
  /// The text form, e.g. `/a~1b/0`.
  public var description: String {
    tokens.map { "/" + Self.escape($0) }.joined()
  }
}

/// A pointer text that does not follow RFC 6901.
public struct JSONPointerError: Error, Sendable, Hashable, CustomStringConvertible {
  public let pointer: String
  public let message: String

  init(pointer: String, problem: String) {
    self.pointer = pointer
    self.message = "JSON pointer \"\(pointer)\" \(problem)"
  }

  public var description: String { message }
}

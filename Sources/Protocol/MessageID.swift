import JSON

/// A request's `id`, kept as the JSON text the host wrote, so that every line answering the
/// request echoes it byte for byte: a number as it was typed (`18446744073709551617`, `1E2`,
/// `7.50`), which a parsed integer or double would not give back.
///
/// ```swift
/// let id = MessageID(text: Array("1E2".utf8))  // echoed as "id":1E2
/// MessageID("req-1").text                           // the bytes of "\"req-1\""
/// ```
@_spi(Hosting)
public struct MessageID: Sendable, Hashable, CustomStringConvertible {
  /// The id's JSON text: a quoted string, or a number token. A `String`, because one of up to
  /// 15 bytes (most ids) is stored inline: an id on every line then costs no allocation.
  private let json: String

  /// The longest id, as written (a string's quotes and escapes included): every id within it
  /// is echoed byte for byte, and every host's JSON reader takes it (Python's refuses integers
  /// of more than 4,300 digits).
  public static let maxBytes = 256

  /// The id's JSON text, as bytes.
  public var text: [UInt8] { Array(json.utf8) }

  /// The length of the id's JSON text.
  public var byteCount: Int { json.utf8.count }

  /// A string id.
  public init(_ string: String) {
    json = JSONValue.string(string).jsonString
  }

  /// An id from its JSON text in the input, a string or a number token, already checked.
  public init(text: some Collection<UInt8>) {
    json = String(decoding: text, as: UTF8.self)
  }

  /// A string id of plain ASCII (no quote, backslash or control character), from its bytes.
  init(plainASCII string: UnsafeRawBufferPointer) {
    json = "\"" + String(decoding: string, as: UTF8.self) + "\""
  }

  /// Appends the id's JSON text.
  func write(into bytes: inout [UInt8]) {
    bytes.append(contentsOf: json.utf8)
  }

  /// An id from a parsed value, for a string or a number; nil for any other kind. A number
  /// parsed from text loses how it was written: prefer ``init(text:)`` with that text.
  public init?(_ value: JSONValue) {
    switch value {
    case .string, .int, .number: json = value.jsonString
    default: return nil
    }
  }

  /// The id `value`, the `id` member of the JSON object `line` holds, as the host wrote it;
  /// nil when it is no string or number. A parsed number no longer says how it was written
  /// (`1E2` and `100`, or `18446744073709551617` and the Double nearest it), so its text is read
  /// from the line; an integer other than 0 can only have been written one way, and is not
  /// looked for again.
  public init?(_ value: JSONValue, in line: UnsafeRawBufferPointer) {
    switch value {
    case .string(let string):
      self.init(string)
    case .int(let number) where number != 0:
      self.init(value)
    case .int, .number:
      if let written = JSONParser.memberText("id", in: line) {
        self.init(text: written)
      } else {
        self.init(value)
      }
    default:
      return nil
    }
  }

  /// The id as a JSON value (a number as the nearest Double when no integer holds it).
  public var value: JSONValue {
    (try? JSONParser.parse(json)) ?? .null
  }

  public var description: String { json }
}

extension MessageID: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
  public init(stringLiteral value: String) {
    self.init(value)
  }

  public init(integerLiteral value: Int) {
    json = String(value)
  }
}

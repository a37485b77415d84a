import ComposableDependencies

@FieldwiseState
public struct WebSocketState: Equatable, Codable, Sendable {
  public enum ConnectivityState: String, Codable, CaseIterable, Sendable {
    case disconnected, connecting, connected
  }

  /// How the last connection ended.
  public struct Closure: Equatable, Codable, Sendable {
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
      self.code = code
      self.reason = reason
    }
  }

  public var connectivityState: ConnectivityState = .disconnected
  public var messageToSend: String = ""
  /// The last messages received that are not order books, oldest first: text as a string,
  /// binary as `{"binary": "<base64>"}`. At most `maxReceivedMessages` are kept, and at most `maxReceivedBytes` bytes in all
  /// (the newest is kept whatever its size); a `TrackedArray`, so that dropping the oldest to
  /// make room costs the same however many are kept.
  public var receivedMessages: TrackedArray<ReceivedMessage> = []
  /// The UTF-8 bytes `receivedMessages` holds, counted as they come and go so that the bound by
  /// bytes does not sum the whole list for each message.
  public var receivedBytes: Int = 0
  public var alert: String?
  public var orderBook: OrderBook?
  public var lastClose: Closure?

  public init() {}
}

/// A message `receivedMessages` holds. A text message is its text, a binary one
/// `{"type": "binary", "binary": "<base64>"}` (`SocketMessage`'s form), so that a text that
/// happens to be base64 is never taken for bytes.
public enum ReceivedMessage: Equatable, Sendable, ExpressibleByStringLiteral {
  case text(String)
  case binary(base64: String)

  public init(_ message: SocketMessage) {
    switch message {
    case .text(let text): self = .text(text)
    case .binary: self = .binary(base64: message.displayText)
    }
  }

  public init(stringLiteral text: String) {
    self = .text(text)
  }

  /// What it counts toward the bound by bytes: the UTF-8 bytes of the text or of the base64.
  public var byteCount: Int {
    switch self {
    case .text(let text): text.utf8.count
    case .binary(let base64): base64.utf8.count
    }
  }
}

extension ReceivedMessage: Codable {
  private enum CodingKeys: String, CodingKey { case type, binary }

  /// A string is a text; an object a `SocketMessage` (its base64 checked).
  public init(from decoder: any Decoder) throws {
    if let text = try? decoder.singleValueContainer().decode(String.self) {
      self = .text(text)
    } else {
      self.init(try SocketMessage(from: decoder))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .text(let text):
      var container = encoder.singleValueContainer()
      try container.encode(text)
    case .binary(let base64):
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode("binary", forKey: .type)
      try container.encode(base64, forKey: .binary)
    }
  }
}

// A choice between a string and an object, which a walk of the decoding cannot see.
extension ReceivedMessage: JSONSchemaDescribed {
  public static let jsonSchema: JSONValue = [
    "oneOf": [["type": "string"], SocketMessage.binarySchema]
  ]
}

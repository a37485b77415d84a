import ComposableRuntime

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

  public var connectivityState = ConnectivityState.disconnected
  public var messageToSend = ""
  /// The last messages received that are not order books, oldest first: text as is, binary as
  /// base64. At most `maxReceivedMessages` are kept, and at most `maxReceivedBytes` bytes in all
  /// (the newest is kept whatever its size); a `TrackedArray`, so that dropping the oldest to
  /// make room costs the same however many are kept.
  public var receivedMessages: TrackedArray<String> = []
  /// The UTF-8 bytes `receivedMessages` holds, counted as they come and go so that the bound by
  /// bytes does not sum the whole list for each message.
  public var receivedBytes = 0
  public var alert: String?
  public var orderBook: OrderBook?
  public var lastClose: Closure?

  public init() {}
}

import ComposableDependencies

/// Reads and writes the order-book stream's JSON, which features leave to the live side.
public struct OrderBookCoding: Sendable {
  /// The order book a frame holds, or `nil` when it holds something else.
  public var decode: @Sendable (_ bytes: [UInt8]) -> OrderBook?
  /// The subscription request `[{"ticket":…},{"type":"orderbook","codes":[…]}]`.
  public var subscription: @Sendable (_ ticket: String, _ codes: [String]) -> String

  public init(
    decode: @escaping @Sendable (_ bytes: [UInt8]) -> OrderBook?,
    subscription: @escaping @Sendable (_ ticket: String, _ codes: [String]) -> String
  ) {
    self.decode = decode
    self.subscription = subscription
  }
}

public struct WebSocketDependencies: Sendable {
  public var webSocket: WebSocketService
  public var url: String
  public var clock: any Clock<Duration>
  public var pingInterval: Duration
  public var maxReceivedMessages: Int
  public var maxReceivedBytes: Int
  public var orderBook: OrderBookCoding
  /// A fresh ticket for each subscription request.
  public var ticket: @Sendable () -> String

  public init(
    webSocket: WebSocketService, url: String, clock: any Clock<Duration>,
    pingInterval: Duration = .seconds(10), maxReceivedMessages: Int = 1000,
    maxReceivedBytes: Int = 16 << 20,
    orderBook: OrderBookCoding, ticket: @escaping @Sendable () -> String
  ) {
    self.webSocket = webSocket
    self.url = url
    self.clock = clock
    self.pingInterval = pingInterval
    self.maxReceivedMessages = maxReceivedMessages
    self.maxReceivedBytes = maxReceivedBytes
    self.orderBook = orderBook
    self.ticket = ticket
  }
}

import ComposableRuntime
import WebSocketFeature

/// The `websocket` store: TCA's WebSocket case study and the order-book stream, over the
/// WebSocket service.
public enum WebSocketStore: StoreDefinition {
  public struct Options: StoreOptions {
    public var websocketURL = "wss://echo.websocket.events"
    public var pingInterval = 10.0
    public var maxReceived = 1000
    public var maxReceivedBytes = 16 << 20

    public init() {}

    /// A millisecond at least, so pings do not spin; a day at most, so that the interval in
    /// milliseconds always fits the clock's integer.
    static let pingIntervals = 0.001...86_400.0

    public static let arguments: [StoreOption<Self>] = [
      StoreOption("websocket-url", \.websocketURL, help: "URL the websocket store connects to."),
      StoreOption(
        "ping-interval", \.pingInterval, help: "Interval of the websocket store's pings.",
        valueName: "seconds"
      ) { Self.pingIntervals.contains($0) ? nil : "must be between 0.001 and 86400 seconds" },
      StoreOption(
        "max-received", \.maxReceived, help: "Messages the websocket store keeps (the last ones)."
      ) {
        $0 >= 1 ? nil : "must be at least 1"
      },
      StoreOption(
        "max-received-bytes", \.maxReceivedBytes,
        help: "Bytes of messages the websocket store keeps (the newest message whatever its size)."
      ) {
        $0 >= 1 ? nil : "must be at least 1"
      },
    ]
  }

  public static let name = "websocket"
  public static let summary =
    "An echo chat over one WebSocket (--websocket-url) with pings, as in TCA's case study, and "
    + "an order-book stream."
  public static let initialState = WebSocketState()

  public static func reducer(options: Options, services: Services) -> WebSocketReducer {
    let random = services.random
    return WebSocketReducer(
      dependencies: WebSocketDependencies(
        webSocket: services.webSocket, url: options.websocketURL, clock: services.clock,
        pingInterval: .milliseconds(Int64(options.pingInterval * 1000)),
        maxReceivedMessages: options.maxReceived, maxReceivedBytes: options.maxReceivedBytes,
        orderBook: .upbit,
        ticket: { "composable-actor-\(random.int(in: 0...Int.max))" }))
  }
}

import ComposableCore

/// WebSockets as a store's dependency, with the interface of TCA's `WebSocketClient`: one
/// connection per id, opened as a stream of events; then messages, sends and pings by id.
///
/// The live service runs libwebsockets on the loop; in scenarios a scripted peer answers.
/// Cancelling the task that iterates `open`'s events closes the socket.
public struct WebSocketService: Sendable {
  /// Opens the socket `id` to `url`, offering `protocols`; the stream tells when it opened
  /// and when it closed, and ends with it. Cancelling its iteration closes the socket.
  public var open:
    @Sendable (_ id: String, _ url: String, _ protocols: [String]) async ->
      AsyncStream<SocketEvent>
  /// The messages the socket `id` receives, in order, until it closes.
  public var receive: @Sendable (_ id: String) async -> AsyncStream<ReceiveResult>
  /// Sends a message on the socket `id`; throws when it is not open or the send fails.
  public var send: @Sendable (_ id: String, _ message: SocketMessage) async throws -> Void
  /// Sends a ping on the socket `id`; returns when the pong arrives.
  public var sendPing: @Sendable (_ id: String) async throws -> Void

  /// A service from its four operations: the live one, a scenario's scripted peer, or a
  /// test's closures.
  public init(
    open:
      @escaping @Sendable (_ id: String, _ url: String, _ protocols: [String]) async ->
      AsyncStream<SocketEvent>,
    receive: @escaping @Sendable (_ id: String) async -> AsyncStream<ReceiveResult>,
    send: @escaping @Sendable (_ id: String, _ message: SocketMessage) async throws -> Void,
    sendPing: @escaping @Sendable (_ id: String) async throws -> Void
  ) {
    self.open = open
    self.receive = receive
    self.send = send
    self.sendPing = sendPing
  }
}

/// What the socket reports about its connection.
@ComposableAction
public enum SocketEvent: Equatable {
  /// The handshake finished; `protocol` is the subprotocol the server chose, if any.
  @SentByEffect
  case didOpen(protocol: String?)
  /// The connection ended: the close frame's code and reason, or 1006 and why it failed.
  @SentByEffect
  case didClose(code: Int, reason: String)
}

/// One message a socket received, or why receiving failed.
@ComposableAction
public enum ReceiveResult: Equatable {
  /// A message arrived.
  @SentByEffect
  case success(SocketMessage)
  /// Receiving failed (a message too large, text that is not UTF-8, …): why.
  @SentByEffect
  case failure(String)
}

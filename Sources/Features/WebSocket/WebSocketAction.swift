import ComposableCore

/// TCA's WebSocket case study, plus the order-book stream; on the wire `connectButtonTapped`,
/// `webSocket.didOpen`, `receivedSocketMessage.success`, …
public enum WebSocketAction: ComposableAction, Equatable {
  /// Connects when disconnected; otherwise disconnects and cancels the socket's effects.
  case connectButtonTapped
  case messageToSendChanged(String)
  /// Clears `messageToSend` at once, then sends it.
  case sendButtonTapped
  /// Asks the server for an order-book stream of these markets (Upbit's request).
  case subscribeOrderBook(codes: [String])
  case sendResponse(didSucceed: Bool)
  case alertDismissed
  case webSocket(SocketEvent)
  case receivedSocketMessage(ReceiveResult)
}

/// What the socket reports about its connection.
public enum SocketEvent: ComposableAction, Equatable {
  /// The handshake finished; `protocol` is the subprotocol the server chose, if any.
  case didOpen(protocol: String?)
  /// The connection ended: the close frame's code and reason, or 1006 and why it failed.
  case didClose(code: Int, reason: String)
}

public enum ReceiveResult: ComposableAction, Equatable {
  case success(SocketMessage)
  /// Receiving failed (a message too large, text that is not UTF-8, …): why.
  case failure(String)
}

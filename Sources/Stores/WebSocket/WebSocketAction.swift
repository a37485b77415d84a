import ComposableDependencies

/// TCA's WebSocket case study, plus the order-book stream; on the wire `connectButtonTapped`,
/// `webSocket.didOpen`, `receivedSocketMessage.success`, …
public enum WebSocketAction: ComposableAction, Equatable {
  /// Connects when disconnected; otherwise disconnects and cancels the socket's effects.
  case connectButtonTapped
  case messageToSendChanged(String)
  /// Clears `messageToSend` at once, then sends it.
  case sendButtonTapped
  /// Sends a message as is, given as a received one is shown: `{"text": …}` or
  /// `{"binary": "<base64>"}`, so a host can echo what arrives, binary included.
  case sendMessage(SocketMessage)
  /// Asks the server for an order-book stream of these markets (Upbit's request).
  case subscribeOrderBook(codes: [String])
  case sendResponse(didSucceed: Bool)
  case alertDismissed
  case webSocket(SocketEvent)
  case receivedSocketMessage(ReceiveResult)
}

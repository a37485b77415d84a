import ComposableDependencies

/// TCA's WebSocket case study, plus the order-book stream; on the wire `connectButtonTapped`,
/// `webSocket.didOpen`, `receivedSocketMessage.success`, …
@ComposableAction
public enum WebSocketAction: Equatable {
  /// Connects when disconnected; when connecting or connected, disconnects and cancels the
  /// socket's effects.
  case connectButtonTapped
  /// Sets the message to send.
  case messageToSendChanged(String)
  /// Clears messageToSend at once, then sends it as a text message.
  case sendButtonTapped
  /// Sends a message as is, {"type": "text", "text": …} or {"type": "binary", "binary":
  /// base64} (type may be left out), the form receivedSocketMessage.success shows; a failure
  /// shows the send alert.
  case sendMessage(SocketMessage)
  /// Sends Upbit's order-book request for these market codes on the open socket.
  case subscribeOrderBook(codes: [String])
  /// Whether a send succeeded; a failure shows an alert.
  @SentByEffect
  case sendResponse(didSucceed: Bool)
  /// Dismisses the alert.
  case alertDismissed
  /// The socket's events: on open, connected and received messages cleared; on close
  /// (1006: it failed, with why), disconnected and effects cancelled.
  case webSocket(SocketEvent)
  /// What the socket received: an order book updates orderBook, any other message is added to
  /// receivedMessages, and a failure (too large, not UTF-8) is shown as an alert.
  case receivedSocketMessage(ReceiveResult)
}

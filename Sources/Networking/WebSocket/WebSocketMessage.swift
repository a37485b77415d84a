/// A complete WebSocket message, reassembled from all of its fragments.
public enum WebSocketMessage: Sendable, Equatable {
  /// A text message; its bytes were checked to be UTF-8.
  case text(String)
  case binary([UInt8])
}

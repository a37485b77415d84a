/// Why a send, a ping or a received message failed.
package enum WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
  /// `send` or `sendPing` for a socket that is not open: an unknown id, or a socket still
  /// connecting, closing or closed.
  case notOpen
  /// A text message that is not UTF-8 arrived; the socket closes with 1007.
  case invalidUTF8
  /// A message larger than the configured maximum arrived; the socket closes with 1009.
  case messageTooBig(limit: Int)
  /// The socket closed before a queued message was written or a ping was answered.
  case closed(code: Int, reason: String)

  package var description: String {
    switch self {
    case .notOpen: "the WebSocket is not open"
    case .invalidUTF8: "a text message was not valid UTF-8"
    case .messageTooBig(let limit): "a message exceeded the limit of \(limit) bytes"
    case .closed(let code, let reason):
      "the WebSocket closed (\(code)\(reason.isEmpty ? "" : ": \(reason)"))"
    }
  }
}

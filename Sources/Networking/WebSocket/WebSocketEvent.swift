/// What happens to a socket opened with `WebSocketClient.open`: at most one `didOpen`, then
/// exactly one `didClose`, then the stream ends.
///
/// Failures are closes too, as in browsers: a connect that fails (refused, handshake rejected,
/// TLS not trusted, timed out) or a TCP connection that drops reports
/// `didClose(code: 1006, reason:)` with a readable reason, and a message that breaks the rules
/// reports the code the client closed with (1007, 1009) after the error reached `receive`.
package enum WebSocketEvent: Sendable, Equatable {
  /// The opening handshake succeeded; `protocol` is the subprotocol the server selected.
  case didOpen(protocol: String?)
  /// The socket is gone. `code` is the close code the peer sent, or the one this client sent
  /// when it closed first, or `WebSocketCloseCode.abnormalClosure` when there was no close
  /// handshake at all.
  case didClose(code: Int, reason: String)
}

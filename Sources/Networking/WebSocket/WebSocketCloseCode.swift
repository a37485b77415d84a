/// The close codes of RFC 6455 section 7.4.1 that this client sends or reports.
package enum WebSocketCloseCode {
  package static let normalClosure = 1000
  package static let goingAway = 1001
  package static let protocolError = 1002
  /// Reported, never sent: the close frame had no code.
  package static let noStatusReceived = 1005
  /// Reported, never sent: the connection ended without a close handshake.
  package static let abnormalClosure = 1006
  /// Sent when a text message is not UTF-8.
  package static let invalidFramePayloadData = 1007
  /// Sent when a message exceeds `WebSocketConfiguration.maximumMessageSize`.
  package static let messageTooBig = 1009

  /// Whether a close frame may carry `code` (RFC 6455 7.4: 1000–1003, 1007–1011, 3000–4999).
  static func isAllowedInCloseFrame(_ code: Int) -> Bool {
    (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code)
  }
}

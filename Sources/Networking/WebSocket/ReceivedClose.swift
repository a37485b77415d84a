/// The payload of a close frame the peer sent, checked against RFC 6455 (5.5.1, 7.4): either a
/// close to answer in kind, or a violation to answer with a close of this side's own.
///
///     ReceivedClose(payload: [0x03, 0xE8] + Array("bye".utf8))  // .close(code: 1000, reason: "bye")
///     ReceivedClose(payload: [0x13, 0x88])  // .violation(code: 1002, reason: "… close code 5000 …")
enum ReceivedClose: Equatable {
  /// A valid close: 1005 with no reason when the payload was empty.
  case close(code: Int, reason: String)
  /// The close is itself a protocol violation: the code and reason to fail the connection with.
  case violation(code: Int, reason: String)

  init(payload: some Collection<UInt8>) {
    guard payload.count >= 2 else {
      self =
        payload.isEmpty
        ? .close(code: WebSocketCloseCode.noStatusReceived, reason: "")
        : .violation(
          code: WebSocketCloseCode.protocolError,
          reason: "the server's close frame had a one-byte payload")
      return
    }
    let code = Int(payload[payload.startIndex]) << 8 | Int(payload.dropFirst().first!)
    let reason = payload.dropFirst(2)
    var utf8 = UTF8Validator()
    if !WebSocketCloseCode.isAllowedInCloseFrame(code) {
      self = .violation(
        code: WebSocketCloseCode.protocolError,
        reason: "the server sent close code \(code), which RFC 6455 does not allow on the wire")
    } else if !(utf8.consume(reason) && utf8.isAtCharacterBoundary) {
      self = .violation(
        code: WebSocketCloseCode.invalidFramePayloadData,
        reason: "the server's close reason was not UTF-8")
    } else {
      self = .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }
  }
}

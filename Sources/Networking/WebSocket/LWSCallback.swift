import CWebSockets
import CWebSocketsShim

/// The lws callbacks a socket cares about, with their arguments in Swift form.
enum LWSCallback {
  /// The connection reached the server and the handshake request is being written.
  case handshakeSent
  /// The server's handshake response arrived (headers readable): the selected subprotocol.
  case handshakeResponse(selectedProtocol: String?)
  case established
  /// A chunk of a data frame.
  case received(OpaquePointer, UnsafeRawBufferPointer)
  case pong(UnsafeRawBufferPointer)
  case writable(OpaquePointer)
  /// The peer's close frame payload (code and reason), before lws answers it.
  case peerClosed(OpaquePointer, UnsafeRawBufferPointer)
  /// The connect failed: the HTTP status that refused the handshake, or lws's reason.
  case connectionError(String)
  /// OpenSSL checked a certificate of the server's chain; `failure` says why it rejected it.
  case certificateChecked(failure: String?)
  /// lws started closing the connection; its socket is still open.
  case closed(OpaquePointer)
  /// lws is about to free the connection: its last callback.
  case destroyed(OpaquePointer)

  init?(
    _ reason: lws_callback_reasons, wsi: OpaquePointer, user: UnsafeMutableRawPointer?,
    input: UnsafeMutableRawPointer?, length: Int
  ) {
    let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
    switch reason {
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
      self = .handshakeSent
    case LWS_CALLBACK_CLIENT_FILTER_PRE_ESTABLISH:
      self = .handshakeResponse(selectedProtocol: Self.header(WSI_TOKEN_PROTOCOL, of: wsi))
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
      self = .established
    case LWS_CALLBACK_CLIENT_RECEIVE:
      self = .received(wsi, bytes)
    case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
      self = .pong(bytes)
    case LWS_CALLBACK_CLIENT_WRITEABLE:
      self = .writable(wsi)
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
      self = .peerClosed(wsi, bytes)
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
      let status = cws_lws_http_client_http_response(wsi)
      if status > 0 && status != 101 {
        self = .connectionError("the server answered the handshake with HTTP \(status)")
      } else {
        let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
        self = .connectionError(message ?? "the connection failed")
      }
    case LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION:
      // `user` is the X509_STORE_CTX, `length` OpenSSL's verdict (preverify_ok).
      let failure = length == 0 && user != nil ? String(cString: cws_certificate_error(user)) : nil
      self = .certificateChecked(failure: failure)
    case LWS_CALLBACK_CLIENT_CLOSED:
      self = .closed(wsi)
    case LWS_CALLBACK_WSI_DESTROY:
      self = .destroyed(wsi)
    default:
      return nil
    }
  }

  private static func header(_ token: lws_token_indexes, of wsi: OpaquePointer) -> String? {
    let length = Int(cws_lws_hdr_total_length(wsi, token))
    guard length > 0 else { return nil }
    var buffer = [CChar](repeating: 0, count: length + 1)
    guard cws_lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
    return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// The one protocol callback of every context. lws calls it on the loop thread, from inside its
/// own code, so it enters the client's isolation with `assumeIsolated` instead of hopping. The
/// connection is found by the token in `opaque_user_data`, never by a pointer that could dangle.
func webSocketProtocolCallback(
  _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
  _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
  guard let wsi, let context = cws_lws_get_context(wsi),
    let owner = cws_lws_context_user(context)
  else { return 0 }
  let token = Int(bitPattern: cws_lws_get_opaque_user_data(wsi))
  guard token != 0,
    let decoded = LWSCallback(reason, wsi: wsi, user: user, input: input, length: length)
  else { return 0 }
  switch decoded {
  case .established: PongPacing.opened(wsi)
  case .writable: PongPacing.writable(wsi)
  case .closed, .destroyed: PongPacing.closed(wsi)
  default: break
  }
  // Its pointers are lws's, valid during this call on this (the loop) thread, which is where
  // the isolated closure runs: nothing is sent anywhere.
  nonisolated(unsafe) let callback = decoded
  let client = Unmanaged<WebSocketClient>.fromOpaque(owner).takeUnretainedValue()
  return client.assumeIsolated { $0.handle(callback, token: token) }
}

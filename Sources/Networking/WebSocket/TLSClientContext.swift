import CWebSockets
import CWebSocketsShim
import Glibc

/// The OpenSSL client context that every lws context of one `WebSocketClient` uses
/// (`provided_client_ssl_ctx`), so that its trust anchors are loaded once per client.
///
/// lws would otherwise make a new one with every lws context, which this client creates again
/// after each idle period, and load the system's CA bundle into it each time: ~40 ms of loop
/// time per reconnect, measured, against ~2.5 ms for the whole context without it. The anchors
/// are loaded by the first wss socket only (on the thread pool, see `loadTrust`), so ws-only
/// use never reads them. Certificates and host names are verified per connection by lws.
final class TLSClientContext: @unchecked Sendable {
  let pointer: OpaquePointer

  init() throws(LWSContextError) {
    guard let pointer = cws_tls_client_context_new() else {
      throw LWSContextError(description: "cannot create the TLS client context")
    }
    self.pointer = pointer
  }

  deinit {
    cws_SSL_CTX_free(pointer)
  }

  /// Trusts `caFile` (PEM) if given, else the system's store (which honours SSL_CERT_FILE and
  /// SSL_CERT_DIR). Blocking file I/O: call it on the thread pool, before any wss handshake, so
  /// nothing else uses the context meanwhile.
  func loadTrust(caFile: String?) throws(LWSContextError) {
    if let caFile {
      guard access(caFile, R_OK) == 0, cws_SSL_CTX_load_verify_locations(pointer, caFile, nil) == 1
      else { throw LWSContextError(description: "cannot read the CA file \(caFile)") }
    } else if cws_SSL_CTX_set_default_verify_paths(pointer) != 1 {
      throw LWSContextError(description: "cannot load the system's CA certificates")
    }
  }
}

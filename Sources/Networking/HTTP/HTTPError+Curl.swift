import CCurl
import CCurlShim

extension HTTPError {
  /// The error for a transfer that curl ended with `code`.
  ///
  /// - Parameters:
  ///   - detail: curl's error buffer for the transfer, which names the cause more precisely
  ///     than the code (`Recv failure: Connection reset by peer` for `CURLE_RECV_ERROR`).
  ///   - bodyLimit: the transfer's limit on the body size.
  ///   - stoppedAtLimit: the body callback stopped the transfer at that limit, which curl
  ///     reports as a write error.
  init(curlCode code: CURLcode, url: String, detail: String, bodyLimit: Int, stoppedAtLimit: Bool) {
    let message = detail.isEmpty ? String(cString: ccurl_easy_strerror(code)) : detail
    let kind = Self.kind(of: code, bodyLimit: bodyLimit, stoppedAtLimit: stoppedAtLimit)
    self.init(kind, url: url, message: message)
  }

  private static func kind(of code: CURLcode, bodyLimit: Int, stoppedAtLimit: Bool) -> Kind {
    switch code {
    case CURLE_URL_MALFORMAT:
      return .invalidURL
    case CURLE_OPERATION_TIMEDOUT:
      return .timedOut
    case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
      CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE,
      CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND,
      CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
      CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
      return .tls
    case CURLE_FILESIZE_EXCEEDED:
      return .tooLarge(limit: bodyLimit)
    case CURLE_WRITE_ERROR where stoppedAtLimit:
      return .tooLarge(limit: bodyLimit)
    case CURLE_TOO_MANY_REDIRECTS:
      return .tooManyRedirects
    default:
      // Refused, unresolvable, reset (RECV_ERROR), nothing received (GOT_NOTHING), a body
      // shorter than its Content-Length (PARTIAL_FILE), a broken reply: the connection failed,
      // and the message says how. That includes UNSUPPORTED_PROTOCOL: the URL was checked
      // before the transfer (`HTTPURLCheck`), so here it is the server's doing, a reply that
      // is not HTTP ("Received HTTP/0.9") or a redirect to another scheme.
      return .connectionFailed
    }
  }
}

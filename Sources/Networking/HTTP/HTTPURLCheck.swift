import CCurl
import CCurlShim

/// Checks URLs before they reach a transfer, with curl's own parser.
///
/// Left to the transfer, curl would guess `http://` for a URL without a scheme and report
/// other mistakes only after the request was queued.
enum HTTPURLCheck {
  /// Why `url` is not an absolute http or https URL, or `nil` when it is one.
  static func problem(with url: String) -> String? {
    if url.utf8.contains(0) { return "the URL contains a NUL character" }
    guard let handle = ccurl_url() else { return "out of memory" }
    defer { ccurl_url_cleanup(handle) }
    let rc = ccurl_url_set(handle, CURLUPART_URL, url, 0)
    if rc != CURLUE_OK { return String(cString: ccurl_url_strerror(rc)) }
    var scheme: UnsafeMutablePointer<CChar>?
    guard ccurl_url_get(handle, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK, let scheme else {
      return "the URL has no scheme"
    }
    defer { ccurl_free(scheme) }
    let name = String(cString: scheme)
    return name == "http" || name == "https" ? nil : "unsupported scheme \"\(name)\""
  }
}

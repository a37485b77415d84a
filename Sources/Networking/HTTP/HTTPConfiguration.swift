/// Settings shared by every request of one `HTTPClient`.
package struct HTTPConfiguration: Sendable, Equatable {
  /// PEM file of the certificate authorities to trust (the binary's `--ca-file`); `nil` trusts
  /// the system store. Either way curl's CA path is cleared: Debian's libcurl sets one, which
  /// turns off curl's CA cache and makes every new TLS connection re-read the bundle.
  package var caFile: String?

  /// Redirects followed before a request fails with `tooManyRedirects`.
  package var maxRedirects: Int

  /// Idle connections kept open for reuse (`CURLMOPT_MAXCONNECTS`); bursts of concurrent
  /// requests need more than curl's default to keep their connections alive afterwards.
  package var maxConnections: Int

  /// Response bodies larger than this fail with `tooLarge`, unless a request sets its own limit.
  package var maxResponseBytes: Int

  /// The `User-Agent` header; the binary sends `composable-actor/<version>`.
  package var userAgent: String

  package init(
    caFile: String? = nil,
    maxRedirects: Int = 5,
    maxConnections: Int = 64,
    maxResponseBytes: Int = 8 << 20,
    userAgent: String = "composable-actor"
  ) {
    self.caFile = caFile
    self.maxRedirects = maxRedirects
    self.maxConnections = maxConnections
    self.maxResponseBytes = maxResponseBytes
    self.userAgent = userAgent
  }
}

import CCurl

/// `curl_global_init`, run once per process before the first multi handle is created.
///
/// curl requires it before any other call and it is not thread-safe itself; a lazily
/// initialized static runs it exactly once, whichever thread gets there first.
enum CurlGlobal {
  private static let initialized: Void = {
    let rc = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    precondition(
      rc == CURLE_OK, "curl_global_init failed: \(String(cString: curl_easy_strerror(rc)))")
  }()

  static func initialize() {
    initialized
  }
}

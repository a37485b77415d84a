import CCurl
import CCurlShim

/// One request: its curl easy handle, the response as it arrives, and the continuation of the
/// `send` call waiting for it.
///
/// Owned by its `HTTPClient` from `send` until it is finished, and touched on the loop thread
/// only: by the client, and by curl's body and header callbacks, which run inside the client's
/// calls into curl.
final class HTTPTransfer {
  let id: UInt64
  let url: String
  let easy: UnsafeMutableRawPointer
  private let bodyLimit: Int
  private var continuation: UnsafeContinuation<HTTPResponse, any Error>?
  private var body: [UInt8] = []
  private var headers: [String: String] = [:]
  /// Whether the last response's headers ended with their blank line: curl takes a reply
  /// closed in the middle of its headers for a complete one with an empty body.
  private var headersEnded = false
  private var stoppedAtLimit = false
  /// curl writes a message here when a transfer fails; it must outlive the easy handle.
  private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
  /// The request's own headers, which curl reads until the easy handle is cleaned up.
  private var headerList: UnsafeMutablePointer<curl_slist>?

  init(
    id: UInt64, request: HTTPRequest, timeout: Duration, bodyLimit: Int,
    configuration: HTTPConfiguration
  ) {
    guard let easy = ccurl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
    self.id = id
    self.url = request.url
    self.easy = easy
    self.bodyLimit = bodyLimit
    errorBuffer[0] = 0
    let this = Unmanaged.passUnretained(self).toOpaque()
    ccurl_easy_setopt_string(easy, CURLOPT_URL, url)
    setMethodAndBody(of: request)
    ccurl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, this)
    ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
    ccurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, receiveTransferBody)
    ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, this)
    ccurl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, receiveTransferHeader)
    ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, this)
    // curl's timeouts would otherwise use SIGALRM, which is process-wide.
    ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
    ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
    ccurl_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(bodyLimit))
    ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
    ccurl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, configuration.maxRedirects)
    ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
    ccurl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    ccurl_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent)
    ccurl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
    if let caFile = configuration.caFile {
      ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, caFile)
    }
    ccurl_easy_setopt_string(easy, CURLOPT_CAPATH, nil)
  }

  deinit {
    errorBuffer.deallocate()
  }

  /// POST goes through curl's own POST, which turns into a GET on a 301, 302 or 303 redirect as
  /// browsers do; other methods are sent as given, redirects included.
  private func setMethodAndBody(of request: HTTPRequest) {
    if request.method != .get && request.method != .post {
      ccurl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
    }
    if let contentType = request.contentType {
      headerList = ccurl_slist_append(headerList, "Content-Type: \(contentType)")
    }
    if request.body != nil || request.method.sendsBody {
      let body = request.body ?? []
      ccurl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
      // curl copies the bytes here (it only reads them), so they need not outlive this call. An
      // empty body still needs a pointer: without one, curl would read the body from standard
      // input.
      if body.isEmpty {
        ccurl_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
      } else {
        body.withUnsafeBytes { bytes in
          _ = ccurl_easy_setopt_pointer(
            easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
      }
      // Without an empty Expect header, curl waits for a 100 Continue before a body over 1 MiB;
      // without an empty Content-Type, it calls an untyped body a form.
      headerList = ccurl_slist_append(headerList, "Expect:")
      if request.contentType == nil { headerList = ccurl_slist_append(headerList, "Content-Type:") }
    }
    if let headerList { ccurl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList) }
  }

  /// Frees the easy handle, then the header list it read.
  private func cleanUp() {
    ccurl_easy_cleanup(easy)
    if let headerList { ccurl_slist_free_all(headerList) }
    headerList = nil
  }

  /// The transfer of a handle created by this class.
  static func from(_ easy: UnsafeMutableRawPointer) -> HTTPTransfer {
    var pointer: UnsafeMutableRawPointer?
    ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
    return Unmanaged<HTTPTransfer>.fromOpaque(pointer!).takeUnretainedValue()
  }

  /// Whole milliseconds, rounded up and at least 1: curl reads 0 as "no timeout".
  private static func milliseconds(_ duration: Duration) -> Int {
    if duration <= .milliseconds(1) { return 1 }
    let (seconds, attoseconds) = duration.components
    if seconds >= Int64.max / 1000 - 1 { return Int.max }
    return Int(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
  }

  /// Remembers who waits for the result; called once, right before the client starts the
  /// transfer.
  func wait(with continuation: UnsafeContinuation<HTTPResponse, any Error>) {
    self.continuation = continuation
  }

  /// Builds the result of a transfer that curl ended with `code`, frees the easy handle and
  /// resumes the caller. The client has removed the handle from its multi handle.
  func complete(_ code: CURLcode) {
    guard code == CURLE_OK else {
      let detail = String(cString: errorBuffer)
      finish(
        throwing: HTTPError(
          curlCode: code, url: url, detail: detail, bodyLimit: bodyLimit,
          stoppedAtLimit: stoppedAtLimit))
      return
    }
    guard headersEnded else {
      finish(
        throwing: HTTPError(
          .connectionFailed, url: url,
          message: "the connection closed in the middle of the reply's headers"))
      return
    }
    var status = 0
    ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
    guard (200..<300).contains(status) else {
      let excerpt = Array(body.prefix(HTTPError.maxStatusBodyBytes))
      let message = String(decoding: excerpt, as: UTF8.self)
      finish(throwing: HTTPError(.status(status, body: excerpt), url: url, message: message))
      return
    }
    var effectiveURL: UnsafePointer<CChar>?
    ccurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effectiveURL)
    let response = HTTPResponse(
      status: status, headers: headers, body: body,
      url: effectiveURL.map { String(cString: $0) } ?? url)
    cleanUp()
    continuation?.resume(returning: response)
    continuation = nil
  }

  /// Frees the easy handle and resumes the caller with `error`. The client has removed the
  /// handle from its multi handle.
  func finish(throwing error: any Error) {
    cleanUp()
    continuation?.resume(throwing: error)
    continuation = nil
  }

  fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
    if body.count + bytes.count > bodyLimit {
      stoppedAtLimit = true
      return 0
    }
    body.append(contentsOf: bytes)
    return bytes.count
  }

  /// One header line, CRLF included, of any response of the transfer (redirects and interim
  /// responses too, each starting with its status line).
  fileprivate func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
    if line.starts(with: "HTTP/".utf8) {
      headers.removeAll(keepingCapacity: true)
      headersEnded = false
      return line.count
    }
    if line.elementsEqual("\r\n".utf8) || line.elementsEqual("\n".utf8) {
      headersEnded = true
      return line.count
    }
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return line.count }
    let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
    let value = String(decoding: line[(colon + 1)...].trimmingASCIIWhitespace(), as: UTF8.self)
    if let earlier = headers[name] {
      headers[name] = earlier + ", " + value
    } else {
      headers[name] = value
    }
    if name == "content-length", let length = Int(value), length <= bodyLimit {
      body.reserveCapacity(length)
    }
    return line.count
  }
}

extension Slice<UnsafeRawBufferPointer> {
  fileprivate func trimmingASCIIWhitespace() -> Slice<UnsafeRawBufferPointer> {
    let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
    guard let first = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
    let last = lastIndex(where: { !isSpace($0) })!
    return self[first...last]
  }
}

/// CURLOPT_WRITEFUNCTION: a piece of the body.
private func receiveTransferBody(
  _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ transfer: UnsafeMutableRawPointer?
) -> Int {
  Unmanaged<HTTPTransfer>.fromOpaque(transfer!).takeUnretainedValue()
    .receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// CURLOPT_HEADERFUNCTION: one header line.
private func receiveTransferHeader(
  _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ transfer: UnsafeMutableRawPointer?
) -> Int {
  Unmanaged<HTTPTransfer>.fromOpaque(transfer!).takeUnretainedValue()
    .receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
}

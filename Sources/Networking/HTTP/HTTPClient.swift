import CCurl
import CCurlShim
import CLibUV
import EventLoop

/// An HTTP client on the product's libuv loop, built on libcurl's multi-socket API.
///
/// The actor runs on the loop's executor: stores and effects, which already run there, call it
/// without a thread hop, and libuv's and curl's callbacks enter it with `assumeIsolated`. curl
/// does the protocol work; the client tells the loop which sockets curl waits on (a `uv_poll_t`
/// each) and when curl wants to be woken (one `uv_timer_t`), and hands every finished transfer
/// to the `send` call waiting for it. Connections stay open for reuse between requests, up to
/// `HTTPConfiguration.maxConnections`.
///
/// Call `shutdown()` before `EventLoop.shutdown()`: it ends pending requests and closes the
/// client's handles, which the loop would otherwise close without freeing.
package actor HTTPClient {
  package nonisolated let loop: EventLoop
  package nonisolated let configuration: HTTPConfiguration

  /// curl's multi handle: created with the first request, cleaned up by `shutdown()`.
  var multi: UnsafeMutableRawPointer?
  /// Wakes curl when one of its timeouts is due; open while `multi` is.
  var timer: UnsafeMutablePointer<uv_timer_t>?
  /// The sockets curl waits on.
  var sockets: [curl_socket_t: WatchedSocket] = [:]
  /// Transfers added to `multi` and not finished, by id.
  var transfers: [UInt64: HTTPTransfer] = [:]
  private var lastTransferID: UInt64 = 0
  private(set) var isShutDown = false

  package nonisolated var unownedExecutor: UnownedSerialExecutor {
    loop.executor.asUnownedSerialExecutor()
  }

  /// Creates a client. It touches neither curl nor the loop before its first request, so it may
  /// be created on any thread, and a process that makes no request never loads libcurl.
  package init(loop: EventLoop, configuration: HTTPConfiguration = HTTPConfiguration()) {
    self.loop = loop
    self.configuration = configuration
  }

  /// GETs `url`: ``send(_:timeout:maxBodyBytes:)`` with a GET request.
  package func get(_ url: String, timeout: Duration, maxBodyBytes: Int? = nil) async throws
    -> HTTPResponse
  {
    try await send(HTTPRequest(.get, url), timeout: timeout, maxBodyBytes: maxBodyBytes)
  }

  /// Sends `request`, following redirects, and returns the response once its body arrived in
  /// full.
  ///
  /// - Parameters:
  ///   - timeout: for the whole request, connecting and redirects included.
  ///   - maxBodyBytes: the largest body accepted; `configuration.maxResponseBytes` if `nil`.
  /// - Throws: `HTTPError`, also for a status outside 2xx; `CancellationError` when the calling
  ///   task is cancelled or the client shuts down. Cancellation removes the transfer from curl
  ///   at once, which closes its connection.
  /// - Precondition: the method is a token and the content type holds no line break: both come
  ///   from the calling code, never from a server.
  package func send(_ request: HTTPRequest, timeout: Duration, maxBodyBytes: Int? = nil)
    async throws -> HTTPResponse
  {
    try Task.checkCancellation()
    if isShutDown { throw CancellationError() }
    let bodyLimit = maxBodyBytes ?? configuration.maxResponseBytes
    precondition(bodyLimit >= 0, "maxBodyBytes must not be negative")
    precondition(request.method.isToken, "the HTTP method \(request.method) is not a token")
    precondition(
      request.contentType?.utf8.contains(where: { $0 == 10 || $0 == 13 }) != true,
      "a content type cannot hold a line break")
    let url = request.url
    let multi = try startIfNeeded(for: url)
    if let problem = HTTPURLCheck.problem(with: url) {
      throw HTTPError(.invalidURL, url: url, message: problem)
    }
    lastTransferID += 1
    let transfer = HTTPTransfer(
      id: lastTransferID, request: request, timeout: timeout, bodyLimit: bodyLimit,
      configuration: configuration)
    let id = transfer.id
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        transfer.wait(with: continuation)
        transfers[id] = transfer
        let rc = ccurl_multi_add_handle(multi, transfer.easy)
        if rc != CURLM_OK {
          transfers[id] = nil
          let message = String(cString: ccurl_multi_strerror(rc))
          transfer.finish(throwing: HTTPError(.connectionFailed, url: url, message: message))
        }
      }
    } onCancel: {
      // This runs on the cancelling thread, possibly while the actor is busy: the transfer is
      // removed on the loop thread, after the job running there (which may be this very call,
      // not yet registered if the task was cancelled as it began).
      loop.execute { self.assumeIsolated { $0.cancel(id) } }
    }
  }

  /// Ends pending requests with `CancellationError`, closes every connection and starts closing
  /// the client's loop handles, whose memory is freed by their close callbacks in the loop's
  /// next iteration. Requests made afterwards throw `CancellationError`. Idempotent.
  package func shutdown() {
    guard !isShutDown else { return }
    isShutDown = true
    guard let multi else { return }
    let pending = transfers.values.sorted { $0.id < $1.id }
    transfers.removeAll()
    for transfer in pending {
      ccurl_multi_remove_handle(multi, transfer.easy)
      transfer.finish(throwing: CancellationError())
    }
    // Idle connections have no poll handle; any left are stopped before curl closes their
    // sockets.
    for watched in sockets.values {
      uv_poll_stop(watched.poll)
      closeHandle(watched.poll)
    }
    sockets.removeAll()
    ccurl_multi_cleanup(multi)
    self.multi = nil
    if let timer {
      closeHandle(timer)
      self.timer = nil
    }
  }

  /// The multi handle, created with its timer on first use, after libcurl is loaded and
  /// initialized; `url` is the request to fail when libcurl cannot be loaded.
  private func startIfNeeded(for url: String) throws(HTTPError) -> UnsafeMutableRawPointer {
    if let multi { return multi }
    if let failure = ccurl_load() {
      throw HTTPError(.connectionFailed, url: url, message: String(cString: failure))
    }
    guard let multi = ccurl_multi_init() else {
      fatalError("curl_multi_init failed: out of memory")
    }
    let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    // uv_timer_init cannot fail.
    uv_timer_init(loop.uvLoop, timer)
    retainClient(in: timer)
    installCallbacks(on: multi)
    ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxConnections)
    self.multi = multi
    self.timer = timer
    return multi
  }

  private func cancel(_ id: UInt64) {
    guard let transfer = transfers.removeValue(forKey: id), let multi else { return }
    ccurl_multi_remove_handle(multi, transfer.easy)
    transfer.finish(throwing: CancellationError())
  }
}

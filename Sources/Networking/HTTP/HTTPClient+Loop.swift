import CCurl
import CCurlShim
import CLibUV

/// The multi-socket driver: curl says which sockets to watch and when to wake it; the loop
/// reports readiness and timeouts back through `curl_multi_socket_action`.
///
/// curl's callbacks run inside the client's own calls into curl, libuv's in the loop's poll and
/// timer phases; all of them on the loop thread, entering the actor with `assumeIsolated`.
/// They never call back into curl themselves, which curl forbids from its callbacks: a timeout
/// of 0 arms the uv timer for the next loop iteration instead.
extension HTTPClient {
  /// Points curl's socket and timer callbacks at this client. curl calls them only inside the
  /// client's own calls into `multi`, so they need no reference of their own.
  func installCallbacks(on multi: UnsafeMutableRawPointer) {
    let this = Unmanaged.passUnretained(self).toOpaque()
    ccurl_multi_setopt_socket_function(multi, curlSocketChanged)
    ccurl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, this)
    ccurl_multi_setopt_timer_function(multi, curlTimerChanged)
    ccurl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, this)
  }

  /// curl wants `fd` watched for `what` (`CURL_POLL_IN`, `_OUT`, `_INOUT`) or no longer watched
  /// (`CURL_POLL_REMOVE`, sent before curl closes the socket).
  func watch(_ fd: curl_socket_t, _ what: Int32) {
    if what == CURL_POLL_REMOVE {
      if let watched = sockets.removeValue(forKey: fd) {
        uv_poll_stop(watched.poll)
        closeHandle(watched.poll)
      }
      return
    }
    if isShutDown { return }
    let poll: UnsafeMutablePointer<uv_poll_t>
    if let watched = sockets[fd] {
      poll = watched.poll
    } else {
      poll = .allocate(capacity: 1)
      // A failure here (out of memory) is not reported to curl: a socket callback returning -1
      // marks the whole multi handle dead. The unwatched transfer ends at its timeout.
      guard uv_poll_init_socket(loop.uvLoop, poll, fd) == 0 else {
        poll.deallocate()
        return
      }
      retainClient(in: poll)
    }
    var events: Int32 = 0
    if what & CURL_POLL_IN != 0 { events |= Int32(UV_READABLE.rawValue) }
    if what & CURL_POLL_OUT != 0 { events |= Int32(UV_WRITABLE.rawValue) }
    sockets[fd] = WatchedSocket(poll: poll, events: events)
    uv_poll_start(poll, events, curlSocketReady)
  }

  /// curl wants to be woken after `milliseconds`, or not at all when it is negative.
  func setTimer(_ milliseconds: Int) {
    guard let timer else { return }
    if milliseconds < 0 {
      uv_timer_stop(timer)
    } else {
      uv_timer_start(timer, curlTimerFired, UInt64(milliseconds), 0)
    }
  }

  fileprivate func socketReady(_ fd: curl_socket_t, status: Int32, events: Int32) {
    guard status >= 0 else {
      // libuv reports a socket error (a reset, a refused connect) as UV_EBADF and stops the
      // handle. Telling curl the socket is readable and writable makes it meet the error
      // itself and name it ("Connection reset by peer"); CURL_CSELECT_ERR would only give
      // "select/poll returned error". Should curl keep the socket, its handle is restarted
      // (a handle curl asked for anew meanwhile is already started: starting it again is
      // harmless).
      drive(fd, CURL_CSELECT_IN | CURL_CSELECT_OUT)
      if let watched = sockets[fd] {
        uv_poll_start(watched.poll, watched.events, curlSocketReady)
      }
      return
    }
    var flags: Int32 = 0
    if events & Int32(UV_READABLE.rawValue) != 0 { flags |= CURL_CSELECT_IN }
    if events & Int32(UV_WRITABLE.rawValue) != 0 { flags |= CURL_CSELECT_OUT }
    drive(fd, flags)
  }

  fileprivate func timerFired() {
    drive(CURL_SOCKET_TIMEOUT, 0)
  }

  /// Lets curl act on `fd` (or on its timeouts), then finishes the transfers that ended.
  private func drive(_ fd: curl_socket_t, _ flags: Int32) {
    guard let multi else { return }
    var running: Int32 = 0
    ccurl_multi_socket_action(multi, fd, flags, &running)
    var queued: Int32 = 0
    while let message = ccurl_multi_info_read(multi, &queued) {
      guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else {
        continue
      }
      // The message is freed when its handle is removed: read it first.
      let code = message.pointee.data.result
      let transfer = HTTPTransfer.from(easy)
      transfers[transfer.id] = nil
      ccurl_multi_remove_handle(multi, easy)
      transfer.complete(code)
    }
  }

  /// Makes `handle` keep the client alive until its close callback ran, so that no libuv
  /// callback can reach a client that is gone.
  func retainClient<Handle>(in handle: UnsafeMutablePointer<Handle>) {
    uvHandle(handle).pointee.data = Unmanaged.passRetained(self).toOpaque()
  }

  /// Starts closing a handle set up with `retainClient`; its close callback frees it.
  func closeHandle<Handle>(_ handle: UnsafeMutablePointer<Handle>) {
    uv_close(uvHandle(handle), releaseClientHandle)
  }
}

private func uvHandle<Handle>(_ handle: UnsafeMutablePointer<Handle>)
  -> UnsafeMutablePointer<uv_handle_t>
{
  UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self)
}

private func client<Handle>(of handle: UnsafeMutablePointer<Handle>?) -> HTTPClient {
  Unmanaged<HTTPClient>.fromOpaque(uvHandle(handle!).pointee.data).takeUnretainedValue()
}

/// CURLMOPT_SOCKETFUNCTION.
private func curlSocketChanged(
  _ easy: UnsafeMutableRawPointer?, _ fd: curl_socket_t, _ what: Int32,
  _ client: UnsafeMutableRawPointer?, _ socketData: UnsafeMutableRawPointer?
) -> Int32 {
  Unmanaged<HTTPClient>.fromOpaque(client!).takeUnretainedValue()
    .assumeIsolated { $0.watch(fd, what) }
  return 0
}

/// CURLMOPT_TIMERFUNCTION.
private func curlTimerChanged(
  _ multi: UnsafeMutableRawPointer?, _ milliseconds: Int, _ client: UnsafeMutableRawPointer?
) -> Int32 {
  Unmanaged<HTTPClient>.fromOpaque(client!).takeUnretainedValue()
    .assumeIsolated { $0.setTimer(milliseconds) }
  return 0
}

private func curlSocketReady(
  _ poll: UnsafeMutablePointer<uv_poll_t>?, _ status: Int32, _ events: Int32
) {
  var fd: uv_os_fd_t = -1
  uv_fileno(uvHandle(poll!), &fd)
  client(of: poll).assumeIsolated { $0.socketReady(fd, status: status, events: events) }
}

private func curlTimerFired(_ timer: UnsafeMutablePointer<uv_timer_t>?) {
  client(of: timer).assumeIsolated { $0.timerFired() }
}

/// The close callback of the client's handles: drop the client, free the memory.
private func releaseClientHandle(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
  Unmanaged<HTTPClient>.fromOpaque(handle!.pointee.data).release()
  UnsafeMutableRawPointer(handle!).deallocate()
}

/// A socket curl waits on: its poll handle and the `uv_poll_event`s curl asked for.
struct WatchedSocket {
  let poll: UnsafeMutablePointer<uv_poll_t>
  var events: Int32
}

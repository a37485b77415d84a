import CLibUV
import Glibc

/// Watches a pipe or socket that is written to for its reader going away, while nothing is
/// written: a `uv_poll_t` on a duplicate of the descriptor.
///
/// epoll reports `EPOLLERR` and `EPOLLHUP` whatever is asked: a pipe's write end reports
/// `EPOLLERR` once its last reader closed, a socket `EPOLLHUP` once both directions are shut.
/// The handle asks for `UV_PRIORITIZED` alone, which pipes and Unix sockets never report, so
/// it wakes for nothing else: not for writability, and not for a socket whose peer only shut
/// its own writing (`EPOLLRDHUP`, which a socket used as stdin too reports at end of input),
/// which can still be written. Each wake-up is confirmed with `poll(2)` on the descriptor; a
/// TCP socket's urgent data, the one other cause, stops the watch, leaving a reader going away
/// to the next write's `EPIPE`. Writes never touch it: the watch costs one epoll registration,
/// not a call per write. The poll handle needs a descriptor of its own, as libuv watches each
/// descriptor with one handle at most. Unreferenced: it never keeps the loop alive.
final class HangUpWatch: LoopHandleOwner {
  private let loop: EventLoop
  private var handle: UnsafeMutablePointer<uv_poll_t>?
  private let fd: Int32
  private var onHangUp: () -> Void

  init(loop: EventLoop, watching watched: Int32, onHangUp: @escaping () -> Void) throws(LoopError) {
    self.loop = loop
    self.onHangUp = onHangUp
    let fd = fcntl(watched, F_DUPFD_CLOEXEC, 0)
    if fd < 0 { throw LoopError(code: -errno, operation: "dup stdout") }
    self.fd = fd
    do {
      handle = try loop.openHandle(uv_poll_t.self, owner: self, operation: "uv_poll_init") {
        uv_poll_init(loop.raw, $0, fd)
      }
    } catch {
      Glibc.close(fd)
      throw error
    }
    uv_unref(uvHandle(handle!))
    let rc = uv_poll_start(handle, Int32(UV_PRIORITIZED.rawValue), hangUpPolled)
    if rc < 0 {
      close()
      throw LoopError(code: rc, operation: "uv_poll_start")
    }
  }

  func close() {
    if let handle { loop.closeHandle(handle) }
  }

  /// An error, a hang-up or urgent data (libuv reports the first two as `UV_PRIORITIZED`, or as
  /// `UV_EBADF` after stopping the handle). Asks the descriptor itself which it was.
  fileprivate func polled() {
    var descriptor = pollfd(fd: fd, events: 0, revents: 0)
    let ready = poll(&descriptor, 1, 0)
    if ready > 0 && descriptor.revents & Int16(POLLHUP | POLLERR) != 0 {
      let hangUp = onHangUp
      close()
      hangUp()
    } else if let handle {
      // Urgent data: level-triggered, it would be reported again in every iteration.
      uv_poll_stop(handle)
    }
  }

  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    self.handle = nil
    onHangUp = {}
    Glibc.close(fd)
  }
}

private func hangUpPolled(
  _ handle: UnsafeMutablePointer<uv_poll_t>?, _ status: Int32, _ events: Int32
) {
  handleOwner(handle, as: HangUpWatch.self).polled()
}

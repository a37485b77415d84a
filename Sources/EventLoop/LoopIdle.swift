import CLibUV

/// A `uv_idle_t` used only for its side effect: while one is started, the loop polls without
/// blocking.
///
/// Work queued for the check phase from a phase that comes before the poll (a timer callback,
/// say) would otherwise wait until some unrelated event ends the poll. Unreferenced.
final class LoopIdle: LoopHandleOwner {
  private let loop: EventLoop
  private var handle: UnsafeMutablePointer<uv_idle_t>?

  init(loop: EventLoop) throws(LoopError) {
    self.loop = loop
    let handle = try loop.openHandle(uv_idle_t.self, owner: self, operation: "uv_idle_init") {
      uv_idle_init(loop.raw, $0)
    }
    uv_unref(uvHandle(handle))
    self.handle = handle
  }

  func start() {
    if let handle { uv_idle_start(handle, ignoreIdle) }
  }

  func stop() {
    if let handle { uv_idle_stop(handle) }
  }

  func close() {
    if let handle { loop.closeHandle(handle) }
  }

  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    self.handle = nil
  }
}

private func ignoreIdle(_ handle: UnsafeMutablePointer<uv_idle_t>?) {}

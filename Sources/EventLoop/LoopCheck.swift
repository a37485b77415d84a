import CLibUV

/// A `uv_check_t`: runs `action` right after the loop's poll phase while started.
///
/// Unreferenced: it never keeps the loop alive by itself.
package final class LoopCheck: LoopHandleOwner {
  private let loop: EventLoop
  private var handle: UnsafeMutablePointer<uv_check_t>?
  private var action: () -> Void

  package init(loop: EventLoop, action: @escaping () -> Void) throws(LoopError) {
    self.loop = loop
    self.action = action
    let handle = try loop.openHandle(uv_check_t.self, owner: self, operation: "uv_check_init") {
      uv_check_init(loop.raw, $0)
    }
    uv_unref(uvHandle(handle))
    self.handle = handle
  }

  package func start() {
    if let handle { uv_check_start(handle, runLoopCheck) }
  }

  package func stop() {
    if let handle { uv_check_stop(handle) }
  }

  package func close() {
    if let handle { loop.closeHandle(handle) }
  }

  fileprivate func run() {
    action()
  }

  /// Drops the action too: it usually captures the object that owns this check.
  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    self.handle = nil
    action = {}
  }
}

private func runLoopCheck(_ handle: UnsafeMutablePointer<uv_check_t>?) {
  handleOwner(handle, as: LoopCheck.self).run()
}

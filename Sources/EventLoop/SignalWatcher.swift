import CLibUV
import Glibc

/// Calls back on the loop thread when the process receives one of `signals` (by default the
/// ones that would end it: ``endingSignals``), through `uv_signal_t`s.
///
/// Unreferenced: watching for signals never keeps the loop alive by itself. While a watcher is
/// open the signals no longer terminate the process; closing it restores their default action.
/// Loop thread only.
package final class SignalWatcher: LoopHandleOwner, @unchecked Sendable {
  private let loop: EventLoop
  private var handles: [UnsafeMutablePointer<uv_signal_t>] = []
  private var onSignal: @Sendable (_ signal: Int32) -> Void

  package init(
    loop: EventLoop, signals: [Int32] = SignalWatcher.endingSignals.map(\.number),
    onSignal: @escaping @Sendable (_ signal: Int32) -> Void
  ) throws(LoopError) {
    loop.assertOnLoopThread()
    self.loop = loop
    self.onSignal = onSignal
    do {
      for signal in signals {
        let handle = try loop.openHandle(
          uv_signal_t.self, owner: self, operation: "uv_signal_init"
        ) { uv_signal_init(loop.raw, $0) }
        handles.append(handle)
        uv_unref(uvHandle(handle))
        try LoopError.check(uv_signal_start(handle, signalReceived, signal), "uv_signal_start")
      }
    } catch {
      close()
      throw error
    }
  }

  package func close() {
    loop.assertOnLoopThread()
    for handle in handles { loop.closeHandle(handle) }
  }

  /// The signals a process is sent to end it, or that end it by default (a closed terminal,
  /// a stray user signal), with their names.
  package static let endingSignals: [(number: Int32, name: String)] = [
    (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"),
    (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM"),
  ]

  /// Makes writes to a closed pipe fail with EPIPE instead of killing the process; call once at
  /// start-up. Process-wide.
  package static func ignoreSIGPIPE() {
    signal(SIGPIPE, SIG_IGN)
  }

  fileprivate func received(_ signal: Int32) {
    onSignal(signal)
  }

  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    handles.removeAll { uvHandle($0) == handle }
    if handles.isEmpty { onSignal = { _ in } }
  }
}

private func signalReceived(_ handle: UnsafeMutablePointer<uv_signal_t>?, _ signal: Int32) {
  handleOwner(handle, as: SignalWatcher.self).received(signal)
}

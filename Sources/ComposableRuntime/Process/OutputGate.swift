import Synchronization

/// Holds back the streams effects relay from outside (a WebSocket's messages) while the host is
/// not reading stdout: the next element waits until the output has drained, so that what the
/// process holds stays bounded however fast a server sends.
///
/// Other effects are bounded by what started them; a socket is not, and without this its
/// messages would turn into output lines faster than a stalled host takes them.
///
///     gate.setOpen(false)         // the writer is back-pressured
///     await gate.waitUntilOpen()  // returns once it is open again, or the task is cancelled
package final class OutputGate: Sendable {
  private struct State {
    var isOpen = true
    // Not `[:]`: the literal's initializer instantiates the dictionary's generic type, whose
    // key requirement makes the runtime scan every conformance record of the binary, at every
    // start; `init()` shares the empty storage until a first waiter.
    var waiters = [UInt64: CheckedContinuation<Void, Never>]()
    var lastWaiter: UInt64 = 0
  }

  private let state = Mutex(State())

  package init() {}

  package func setOpen(_ isOpen: Bool) {
    let released = state.withLock { state in
      state.isOpen = isOpen
      guard isOpen else { return [CheckedContinuation<Void, Never>]() }
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in released { waiter.resume() }
  }

  package func waitUntilOpen() async {
    let id: UInt64? = state.withLock { state in
      guard !state.isOpen else { return nil }
      state.lastWaiter += 1
      return state.lastWaiter
    }
    guard let id else { return }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let isReleased = state.withLock { state in
          guard !state.isOpen && !Task.isCancelled else { return true }
          state.waiters[id] = continuation
          return false
        }
        if isReleased { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }
}

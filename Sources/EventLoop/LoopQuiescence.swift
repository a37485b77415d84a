/// Tells when the loop has nothing left to do but wait for time or I/O: no Swift job queued and
/// no thread-pool work in flight. What a virtual clock's `settle` waits for.
///
/// The test runs in the check phase, right after the poll phase ran the executor's jobs, when
/// the executor's queue says exactly what is left. Effects waiting for a socket or a timer are
/// waiting, not working: they do not hold it up. Loop thread only.
package final class LoopQuiescence {
  private let loop: EventLoop
  private var check: LoopCheck?
  private var waiters: [() -> Void] = []

  package init(loop: EventLoop) throws(LoopError) {
    self.loop = loop
    check = try LoopCheck(loop: loop) { [unowned self] in evaluate() }
  }

  /// Calls `body` on the loop thread in the first check phase where the loop is quiescent.
  ///
  /// The check starts from a job, so at least one loop iteration (whose poll phase runs that
  /// job and any it queues) comes before the test, wherever this is called from.
  package func whenQuiescent(_ body: @escaping () -> Void) {
    loop.assertOnLoopThread()
    waiters.append(body)
    nonisolated(unsafe) let check = check
    loop.execute { check?.start() }
  }

  package func close() {
    check?.close()
    check = nil
    waiters = []
  }

  private func evaluate() {
    guard !waiters.isEmpty else { return check?.stop() ?? () }
    guard !loop.executor.hasPendingJobs, loop.poolWorkInFlight == 0 else { return }
    check?.stop()
    let ready = waiters
    waiters = []
    for body in ready { body() }
  }
}

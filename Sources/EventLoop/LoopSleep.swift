import CLibUV

/// One pending `LoopClock.sleep`: a `uv_timer_t` and the continuation it resumes exactly once.
///
/// All state lives on the loop thread; `start` and `cancel` may be called from anywhere and hop
/// there first, so the cancel handler (which runs on whichever thread cancels the task) never
/// races the timer callback.
final class LoopSleep: LoopHandleOwner, @unchecked Sendable {
  private let loop: EventLoop
  /// In `uv_hrtime()` nanoseconds.
  private let deadline: Int64
  private var timer: UnsafeMutablePointer<uv_timer_t>?
  private var continuation: UnsafeContinuation<Void, any Error>?
  /// Cancellation can arrive before `start` (the task was cancelled as the sleep began).
  private var isCancelled = false

  init(loop: EventLoop, deadline: Int64) {
    self.loop = loop
    self.deadline = deadline
  }

  func start(_ continuation: UnsafeContinuation<Void, any Error>) {
    guard loop.isOnLoopThread else {
      loop.execute { [self] in start(continuation) }
      return
    }
    if isCancelled || loop.isShuttingDown {
      continuation.resume(throwing: CancellationError())
      return
    }
    do {
      timer = try loop.openHandle(uv_timer_t.self, owner: self, operation: "uv_timer_init") {
        uv_timer_init(loop.raw, $0)
      }
    } catch {
      continuation.resume(throwing: error)
      return
    }
    self.continuation = continuation
    arm()
  }

  func cancel() {
    guard loop.isOnLoopThread else {
      loop.execute { [self] in cancel() }
      return
    }
    isCancelled = true
    finish(throwing: CancellationError())
  }

  /// Starts the timer for the deadline, in the loop's own (cached, millisecond) time.
  ///
  /// The timeout is computed against `uv_now`, not `uv_hrtime`, because libuv adds it to the
  /// cached loop time: the timer is due when the loop time reaches the deadline rounded up to a
  /// millisecond, however stale the cache was when the timer was armed.
  private func arm() {
    let deadlineMilliseconds = (UInt64(deadline) + 999_999) / 1_000_000
    let now = uv_now(loop.raw)
    let timeout = deadlineMilliseconds > now ? deadlineMilliseconds - now : 0
    uv_timer_start(timer, sleepTimerFired, timeout, 0)
  }

  fileprivate func timerFired() {
    // libuv decides with its cached loop time, which can disagree with uv_hrtime; arming
    // against uv_now should make that harmless, but a sleep must never end early, so check.
    if Int64(bitPattern: uv_hrtime()) < deadline {
      arm()
      return
    }
    finish(throwing: nil)
  }

  private func finish(throwing error: (any Error)?) {
    guard let continuation else { return }
    self.continuation = nil
    if let timer {
      loop.closeHandle(timer)
    }
    if let error {
      continuation.resume(throwing: error)
    } else {
      continuation.resume()
    }
  }

  /// Also reached when `EventLoop.shutdown()` closes a pending sleep's timer: it then throws.
  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    timer = nil
    finish(throwing: CancellationError())
  }
}

private func sleepTimerFired(_ timer: UnsafeMutablePointer<uv_timer_t>?) {
  handleOwner(timer, as: LoopSleep.self).timerFired()
}

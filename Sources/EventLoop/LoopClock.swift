import CLibUV

/// A `Clock` whose sleeps are `uv_timer_t`s on the loop, measured with `uv_hrtime()`.
///
/// Pending sleeps keep the loop alive, like any referenced timer. libuv timers have millisecond
/// resolution, so a sleep ends up to about a millisecond after its deadline (plus whatever the
/// loop is busy with); `tolerance` is ignored.
package struct LoopClock: Clock {
  /// A point on the `uv_hrtime()` time line (monotonic nanoseconds since an arbitrary origin).
  package struct Instant: InstantProtocol, Hashable, Sendable {
    package var nanoseconds: Int64

    package init(nanoseconds: Int64) {
      self.nanoseconds = nanoseconds
    }

    package func advanced(by duration: Duration) -> Instant {
      let (sum, overflow) = nanoseconds.addingReportingOverflow(duration.nanoseconds)
      return Instant(nanoseconds: overflow ? (duration < .zero ? .min : .max) : sum)
    }

    package func duration(to other: Instant) -> Duration {
      .nanoseconds(other.nanoseconds) - .nanoseconds(nanoseconds)
    }

    package static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.nanoseconds < rhs.nanoseconds
    }
  }

  let loop: EventLoop

  package var now: Instant { Instant(nanoseconds: Int64(bitPattern: uv_hrtime())) }

  package var minimumResolution: Duration { .milliseconds(1) }

  /// Suspends until `deadline`; throws `CancellationError` if the task is cancelled first, or if
  /// the loop shuts down. Callable from any thread; the timer lives on the loop.
  package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    if deadline <= now { return }
    let sleep = LoopSleep(loop: loop, deadline: deadline.nanoseconds)
    try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        sleep.start(continuation)
      }
    } onCancel: {
      sleep.cancel()
    }
  }
}

extension Duration {
  /// The duration in whole nanoseconds, saturating at the bounds of `Int64`.
  var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflow2 { return seconds < 0 ? .min : .max }
    return sum
  }
}

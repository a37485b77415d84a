import ComposableCore
import EventLoop
import Protocol

/// `advance` and `settle` over a ``VirtualClock`` on the loop.
///
/// Settling waits for a quiescent loop (no job queued, no thread-pool work in flight): what is
/// left then waits for time or I/O. An advance settles first, so that sleeps started by the
/// lines before it are registered, then wakes sleepers one deadline at a time, settling after
/// each, so everything a wake-up starts (new sleeps inside the same advance included) runs
/// before the next deadline.
@StoreActor
public final class VirtualTimeControl: TimeControl {
  public let clock: VirtualClock
  private let quiescence: LoopQuiescence

  public init(clock: VirtualClock, loop: EventLoop) throws(LoopError) {
    self.clock = clock
    quiescence = try LoopQuiescence(loop: loop)
  }

  public func settle(completion: @escaping () -> Void) {
    quiescence.whenQuiescent { StoreActor.assumeIsolated { completion() } }
  }

  public func advance(byMilliseconds ms: Int, completion: @escaping (_ now: Int) -> Void) {
    let target = clock.now.advanced(by: .milliseconds(ms))
    func step() {
      if clock.wakeNextSleepers(notAfter: target) {
        settle(completion: step)
      } else {
        clock.move(to: target)
        completion(clock.elapsedMilliseconds)
      }
    }
    settle(completion: step)
  }

  public func close() {
    quiescence.close()
  }
}

extension VirtualClock {
  /// Whole milliseconds since the clock started: what `advanced` reports and reducers see.
  public var elapsedMilliseconds: Int { Int(now.offset / .milliseconds(1)) }
}

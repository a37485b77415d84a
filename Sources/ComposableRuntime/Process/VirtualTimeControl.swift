import ComposableCore
import EventLoop
@_spi(Hosting) import Protocol

/// `advance` and `settle` over a ``/ComposableCore/VirtualClock`` on the loop.
///
/// Settling waits for a quiescent loop (no job queued, no thread-pool work in flight): what is
/// left then waits for time or I/O. An advance settles first, so that sleeps started by the
/// lines before it are registered, then wakes sleepers one deadline at a time, settling after
/// each, so everything a wake-up starts (new sleeps inside the same advance included) runs
/// before the next deadline. One advance wakes sleepers at `maximumWakeUps` deadlines at most.
@StoreActor
package final class VirtualTimeControl: TimeControl {
  /// Small enough that an advance ends, and the reader reads the `quit` or the end of input
  /// behind it, within about half a second: the input waits while an advance runs, and a
  /// wake-up costs about 100 µs (randomTodo's timer and fetch). 1,000,000 made that a minute.
  package nonisolated static let defaultMaximumWakeUps = 5_000

  package let clock: VirtualClock
  /// The most deadlines one advance wakes sleepers at before it stops short of its target.
  package let maximumWakeUps: Int
  private let quiescence: LoopQuiescence
  /// Called before each move of the clock within an advance: a durable session stores what was
  /// reduced so far with the time it was reduced at, not the time the advance moves on to.
  package var willMoveClock: () -> Void = {}

  package init(
    clock: VirtualClock, loop: EventLoop, maximumWakeUps: Int = defaultMaximumWakeUps
  ) throws(LoopError) {
    self.clock = clock
    self.maximumWakeUps = maximumWakeUps
    quiescence = try LoopQuiescence(loop: loop)
  }

  package func settle(completion: @escaping () -> Void) {
    quiescence.whenQuiescent { StoreActor.assumeIsolated { completion() } }
  }

  package func advance(byMilliseconds ms: Int, completion: @escaping (AdvanceOutcome) -> Void) {
    let target = clock.now.advanced(by: .milliseconds(ms))
    var wakeUps = 0
    func step() {
      guard wakeUps < maximumWakeUps else {
        return completion(
          AdvanceOutcome(now: clock.elapsedMilliseconds, stoppedAfterWakeUps: wakeUps))
      }
      willMoveClock()
      if clock.wakeNextSleepers(notAfter: target) {
        wakeUps += 1
        settle(completion: step)
      } else {
        clock.move(to: target)
        completion(AdvanceOutcome(now: clock.elapsedMilliseconds))
      }
    }
    settle(completion: step)
  }

  package func close() {
    quiescence.close()
  }
}

extension VirtualClock {
  /// Whole milliseconds since the clock started: what `advanced` reports and reducers see.
  /// Rounded: a scenario may order answers due in one millisecond a few microseconds apart
  /// (`Scenario` delays with a fraction), and reducers should still see that millisecond.
  package var elapsedMilliseconds: Int { now.offset.wholeMilliseconds(rounded: true) }
}

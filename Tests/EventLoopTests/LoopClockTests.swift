import EventLoop
import XCTest

private func sleeper(
  _ clock: LoopClock, milliseconds: Int, order: Locked<[Int]>
) async {
  try? await clock.sleep(for: .milliseconds(milliseconds))
  order.append(milliseconds)
}

private func sleepAndReport(
  _ clock: LoopClock, seconds: Int, outcome: Locked<String?>
) async {
  do {
    try await clock.sleep(for: .seconds(seconds))
    outcome.withValue { $0 = "slept" }
  } catch {
    outcome.withValue { $0 = "\(type(of: error))" }
  }
}

final class LoopClockTests: XCTestCase {
  func testSleepsEndInDeadlineOrderAndNotEarly() {
    let order = Locked<[Int]>([])
    let early = Locked(0)
    runLoop { loop in
      let clock = loop.clock
      for milliseconds in [30, 10, 20, 0, 5] {
        Task(executorPreference: loop.executor) {
          let deadline = clock.now.advanced(by: .milliseconds(milliseconds))
          await sleeper(clock, milliseconds: milliseconds, order: order)
          if clock.now < deadline { early.withValue { $0 += 1 } }
        }
      }
    }
    XCTAssertEqual(order.current, [0, 5, 10, 20, 30])
    XCTAssertEqual(early.current, 0)
  }

  func testSleepFromOffTheLoopHopsThereForTheTimer() {
    let outcome = Locked<String?>(nil)
    runLoop { loop in
      let clock = loop.clock
      let alive = keepAlive(loop)
      Task.detached {
        await sleepAndReport(clock, seconds: 0, outcome: outcome)
        try? await clock.sleep(for: .milliseconds(5))
        outcome.withValue { $0 = ($0 ?? "") + "+5ms" }
        alive.cancel()
      }
    }
    XCTAssertEqual(outcome.current, "slept+5ms")
  }

  func testCancelledSleepThrowsPromptlyAndLetsTheLoopExit() {
    let outcome = Locked<String?>(nil)
    let start = ContinuousClock.now
    runLoop { loop in
      let clock = loop.clock
      let sleeping = Task(executorPreference: loop.executor) {
        await sleepAndReport(clock, seconds: 30, outcome: outcome)
      }
      Task(executorPreference: loop.executor) {
        try? await clock.sleep(for: .milliseconds(10))
        sleeping.cancel()
      }
    }
    // run() returned: the cancelled timer no longer keeps the loop alive.
    XCTAssertLessThan(ContinuousClock.now - start, .seconds(5))
    XCTAssertEqual(outcome.current, "CancellationError")
  }

  func testCancellationFromAnotherThread() {
    let outcome = Locked<String?>(nil)
    runLoop { loop in
      let clock = loop.clock
      let sleeping = Task(executorPreference: loop.executor) {
        await sleepAndReport(clock, seconds: 30, outcome: outcome)
      }
      TestThread.detach {
        pause(milliseconds: 10)
        sleeping.cancel()
      }
    }
    XCTAssertEqual(outcome.current, "CancellationError")
  }

  func testAlreadyCancelledTaskDoesNotSleep() {
    let outcome = Locked<String?>(nil)
    runLoop { loop in
      let clock = loop.clock
      let task = Task(executorPreference: loop.executor) {
        await sleepAndReport(clock, seconds: 30, outcome: outcome)
      }
      task.cancel()
    }
    XCTAssertEqual(outcome.current, "CancellationError")
  }

  func testInstantArithmetic() {
    let instant = LoopClock.Instant(nanoseconds: 1_000)
    XCTAssertEqual(instant.advanced(by: .microseconds(2)).nanoseconds, 3_000)
    XCTAssertEqual(instant.duration(to: LoopClock.Instant(nanoseconds: 500)), .nanoseconds(-500))
    XCTAssertEqual(instant.advanced(by: .seconds(Int64.max)).nanoseconds, Int64.max)
    let negative = LoopClock.Instant(nanoseconds: -1_000)
    XCTAssertEqual(negative.advanced(by: .seconds(Int64.min)).nanoseconds, Int64.min)
  }

  func testManyConcurrentSleeps() {
    let count = 20_000
    let woken = Locked(0)
    runLoop { loop in
      let clock = loop.clock
      for index in 0..<count {
        Task(executorPreference: loop.executor) {
          try? await clock.sleep(for: .milliseconds(1 + index % 20))
          woken.withValue { $0 += 1 }
        }
      }
    }
    XCTAssertEqual(woken.current, count)
  }
}

import ComposableCore
import ComposableTestSupport
import XCTest

/// The step API the product's `advance` uses, where settling between wake-ups is asynchronous.
final class VirtualClockTests: XCTestCase {
  func testWakesOneDeadlineAtATimeAndMovesTimeOnlyForward() {
    let executor = ManualExecutor()
    let clock = VirtualClock()
    let woken = LockedBox<[Int]>([])
    for (id, delay) in [(1, 300), (2, 100), (3, 100)] {
      Task(executorPreference: executor) {
        try? await clock.sleep(for: .milliseconds(delay))
        woken.withValue { $0.append(id) }
      }
    }
    executor.runUntilIdle()
    let target = clock.now.advanced(by: .milliseconds(200))

    XCTAssertTrue(clock.wakeNextSleepers(notAfter: target))
    executor.runUntilIdle()
    XCTAssertEqual(woken.value, [2, 3], "both sleepers due at 100 ms, in order")
    XCTAssertEqual(clock.now.offset, .milliseconds(100))

    XCTAssertFalse(clock.wakeNextSleepers(notAfter: target), "300 ms is after the target")
    XCTAssertEqual(clock.now.offset, .milliseconds(100))
    clock.move(to: target)
    XCTAssertEqual(clock.now.offset, .milliseconds(200))
    clock.move(to: VirtualClock.Instant(offset: .milliseconds(50)))
    XCTAssertEqual(clock.now.offset, .milliseconds(200), "time never goes backwards")

    XCTAssertTrue(clock.wakeNextSleepers(notAfter: clock.now.advanced(by: .seconds(1))))
    executor.runUntilIdle()
    XCTAssertEqual(woken.value, [2, 3, 1])
    XCTAssertEqual(clock.now.offset, .milliseconds(300))
  }
}

/// A virtual clock advanced often enough holds more milliseconds than `Int` does: converting
/// through a `Double` trapped there.
final class DurationMillisecondsTests: XCTestCase {
  func testWholeMillisecondsTruncateOrRound() {
    XCTAssertEqual(Duration.microseconds(2_999).wholeMilliseconds(), 2)
    XCTAssertEqual(Duration.microseconds(2_999).wholeMilliseconds(rounded: true), 3)
    XCTAssertEqual(Duration.microseconds(2_400).wholeMilliseconds(rounded: true), 2)
    XCTAssertEqual(Duration.microseconds(-2_999).wholeMilliseconds(rounded: true), -3)
    XCTAssertEqual(Duration.milliseconds(Int.max).wholeMilliseconds(rounded: true), Int.max)
  }

  func testWholeMillisecondsSaturateAtTheBoundsOfInt() {
    XCTAssertEqual(Duration.seconds(Int64.max).wholeMilliseconds(), Int.max)
    XCTAssertEqual(Duration.seconds(Int64.min).wholeMilliseconds(rounded: true), Int.min)
    let far = Duration.milliseconds(Int.max) + .milliseconds(Int.max)
    XCTAssertEqual(far.wholeMilliseconds(rounded: true), Int.max)
  }
}

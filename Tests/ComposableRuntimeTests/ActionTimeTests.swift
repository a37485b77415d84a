import ComposableRuntime
import XCTest

final class ActionTimeTests: XCTestCase {
  /// Advances of a century each, from stdin or a scenario, can take the virtual clock past
  /// `Int`'s milliseconds: reducers then see the latest time there is instead of a trap.
  func testVirtualTimePastIntsRangeSaturates() {
    let clock = VirtualClock()
    let time = ActionTime.virtual(clock, start: ActionTime.maximumMilliseconds)
    clock.move(to: .init(offset: .milliseconds(Int.max) + .milliseconds(Int.max)))
    XCTAssertEqual(clock.elapsedMilliseconds, Int.max)
    XCTAssertEqual(time.now(), Int.max)
  }

  func testReplayedTimesAtTheEndsOfTheirRangeAdd() {
    let time = ActionTime.replayed(start: ActionTime.maximumMilliseconds)
    time.replay(elapsed: ActionTime.elapsedRange.upperBound)
    XCTAssertEqual(time.now(), 2 * ActionTime.maximumMilliseconds)
    time.replay(elapsed: ActionTime.elapsedRange.lowerBound)
    XCTAssertEqual(time.now(), 0)
  }
}

import ComposableCore
import ComposableTestSupport
import XCTest

/// The test store must fail where TCA's does, or exhaustive tests prove nothing.
final class TestStoreTests: XCTestCase {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable {
    case increment
    case incrementLater
    case failLater
  }
  struct Failure: Error {}

  private func makeStore(clock: VirtualClock, failures: FailureLog) -> TestStore<State, Action> {
    let store = TestStore(
      initialState: State(),
      reducer: Reduce<State, Action> { state, action in
        switch action {
        case .increment:
          state.count += 1
          return .none
        case .incrementLater:
          return .run { send in
            try await clock.sleep(for: .seconds(1))
            await send(.increment)
          }
        case .failLater:
          return .run { _ in throw Failure() }
        }
      },
      clock: clock)
    store.reportFailure = { message, _, _ in failures.messages.append(message) }
    return store
  }

  final class FailureLog {
    var messages: [String] = []
  }

  func testAWrongStateExpectationFailsWithTheDifferingField() {
    let failures = FailureLog()
    let store = makeStore(clock: VirtualClock(), failures: failures)
    store.send(.increment) { $0.count = 2 }
    store.finish()
    XCTAssertEqual(failures.messages.count, 1)
    XCTAssertTrue(failures.messages[0].contains("count: 2 → 1"), failures.messages[0])
  }

  func testAnUnassertedReceivedActionFails() {
    let failures = FailureLog()
    let clock = VirtualClock()
    let store = makeStore(clock: clock, failures: failures)
    store.send(.incrementLater)
    store.advance(by: .seconds(1))
    store.finish()
    XCTAssertEqual(failures.messages.count, 1)
    XCTAssertTrue(
      failures.messages[0].contains("unexpected action(s): increment"), failures.messages[0])
  }

  func testAnEffectStillRunningAtTheEndFails() {
    let failures = FailureLog()
    let store = makeStore(clock: VirtualClock(), failures: failures)
    store.send(.incrementLater)
    store.finish()
    XCTAssertEqual(failures.messages.count, 1)
    XCTAssertTrue(failures.messages[0].contains("1 effect(s) still running"), failures.messages[0])
  }

  func testReceivingTheWrongActionFails() {
    let failures = FailureLog()
    let clock = VirtualClock()
    let store = makeStore(clock: clock, failures: failures)
    store.send(.incrementLater)
    store.advance(by: .seconds(1))
    store.receive(.incrementLater) { $0.count = 1 }
    store.finish()
    XCTAssertEqual(failures.messages.count, 1)
    XCTAssertTrue(failures.messages[0].contains("unexpected action"), failures.messages[0])
  }

  func testAnUnhandledEffectErrorFails() {
    let failures = FailureLog()
    let store = makeStore(clock: VirtualClock(), failures: failures)
    store.send(.failLater)
    store.finish()
    XCTAssertEqual(failures.messages.count, 1)
    XCTAssertTrue(failures.messages[0].contains("without a catch handler"), failures.messages[0])
  }
}

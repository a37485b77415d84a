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
    XCTAssertEqual(
      failures.messages,
      [
        """
        A state change after sending increment does not match expectation: …

            − TestStoreTests.State(count: 2)
            + TestStoreTests.State(count: 1)

        (Expected: −, Actual: +)
        """
      ])
  }

  /// A wrong element of an identified collection is shown as that element, as in TCA's
  /// `TestStoreFailureTests`, not as the storage that finds elements by id. (Unchanged lines
  /// start with a figure space, U+2007, as custom-dump's proportional format writes them.)
  func testAWrongElementOfAnIdentifiedArrayFailsWithThatElement() {
    struct Result: Equatable, Identifiable, Sendable {
      var id: Int
      var title: String
    }
    struct Results: Equatable, Sendable {
      var results: IdentifiedArrayOf<Result> = [
        Result(id: 1, title: "a"), Result(id: 2, title: "b"),
      ]
    }
    let failures = FailureLog()
    let store = TestStore(
      initialState: Results(),
      reducer: Reduce<Results, String> { state, title in
        state.results[id: 2]?.title = title
        return .none
      })
    store.reportFailure = { message, _, _ in failures.messages.append(message) }
    store.send("c") { $0.results[id: 2]?.title = "d" }
    store.finish()
    XCTAssertEqual(
      failures.messages,
      [
        """
        A state change after sending c does not match expectation: …

            \u{2007} TestStoreTests.Results(
            \u{2007}   results: [
            \u{2007}     [0]: TestStoreTests.Result(…),
            \u{2007}     [1]: TestStoreTests.Result(
            \u{2007}       id: 2,
            −       title: "d"
            +       title: "c"
            \u{2007}     )
            \u{2007}   ]
            \u{2007} )

        (Expected: −, Actual: +)
        """
      ])
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
    XCTAssertEqual(
      failures.messages,
      [
        """
        Received unexpected action: …

            − TestStoreTests.Action.incrementLater
            + TestStoreTests.Action.increment

        (Expected: −, Received: +)
        """
      ])
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

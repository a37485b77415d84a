import ComposableCore
import ComposableTestSupport
import XCTest

/// The test store must fail where TCA's does, or exhaustive tests prove nothing. Ports of TCA's
/// `TestStoreTests` and `TestStoreFailureTests` that apply to this core, each failure asserted
/// by its whole message.
final class TestStoreTests: XCTestCase {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable {
    case increment
    case incrementLater
    case failLater
  }
  struct Failure: Error {}

  private func makeStore(clock: VirtualClock, reports: TestStoreReports) -> TestStore<
    State, Action
  > {
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
    reports.collect(store)
    return store
  }

  func testAWrongStateExpectationFailsWithTheDifferingField() {
    let reports = TestStoreReports()
    let store = makeStore(clock: VirtualClock(), reports: reports)
    store.send(.increment) { $0.count = 2 }
    store.finish()
    XCTAssertEqual(
      reports.failures,
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
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: Results(),
      reducer: Reduce<Results, String> { state, title in
        state.results[id: 2]?.title = title
        return .none
      })
    reports.collect(store)
    store.send("c") { $0.results[id: 2]?.title = "d" }
    store.finish()
    XCTAssertEqual(
      reports.failures,
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
    let reports = TestStoreReports()
    let clock = VirtualClock()
    let store = makeStore(clock: clock, reports: reports)
    store.send(.incrementLater)
    store.advance(by: .seconds(1))
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        "The store received 1 unexpected action(s): increment; assert them with receive, skip "
          + "them with skipReceivedActions(), or make the test non-exhaustive"
      ])
  }

  func testAnEffectStillRunningAtTheEndFails() {
    let reports = TestStoreReports()
    let store = makeStore(clock: VirtualClock(), reports: reports)
    store.timeout = .zero
    store.send(.incrementLater)
    let effect = store.effectEvents.first?.effect ?? 0
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        "1 effect(s) still running at the end of the test; cancel them, assert their actions, "
          + "or skip them with skipInFlightEffects():\n  effect \(effect) (run), started by "
          + "incrementLater"
      ])
  }

  func testReceivingTheWrongActionFails() {
    let reports = TestStoreReports()
    let clock = VirtualClock()
    let store = makeStore(clock: clock, reports: reports)
    store.send(.incrementLater)
    store.advance(by: .seconds(1))
    store.receive(.incrementLater) { $0.count = 1 }
    store.finish()
    XCTAssertEqual(
      reports.failures,
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
    let reports = TestStoreReports()
    let store = makeStore(clock: VirtualClock(), reports: reports)
    store.send(.failLater)
    store.finish()
    XCTAssertEqual(
      reports.failures, ["An effect failed without a catch handler: Failure()"])
  }

  // MARK: TCA's TestStoreTests

  func testEffectConcatenation() {
    enum Action: Equatable, Sendable { case a, b1, b2, b3, c1, c2, c3, d }
    let clock = VirtualClock()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, action in
        switch action {
        case .a:
          return .merge(
            .run { send in
              try await clock.sleep(for: .seconds(1))
              await send(.b1)
              await send(.c1)
            },
            .run { _ in try await clock.sleep(for: .seconds(1_000_000)) }.cancellable(id: 1))
        case .b1: return .concatenate(.send(.b2), .send(.b3))
        case .c1: return .concatenate(.send(.c2), .send(.c3))
        case .b2, .b3, .c2, .c3: return .none
        case .d: return .cancel(id: 1)
        }
      }, clock: clock)
    store.send(.a)
    store.advance(by: .seconds(1))
    store.receive(.b1)
    store.receive(.b2)
    store.receive(.b3)
    store.receive(.c1)
    store.receive(.c2)
    store.receive(.c3)
    store.send(.d)
    store.finish()
  }

  func testExpectedStateEquality() {
    struct State: Equatable, Sendable {
      var count = 0
      var isChanging = false
    }
    enum Action: Equatable, Sendable {
      case increment
      case changed(from: Int, to: Int)
    }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: State(),
      reducer: Reduce<State, Action> { state, action in
        switch action {
        case .increment:
          state.isChanging = true
          return .send(.changed(from: state.count, to: state.count + 1))
        case .changed(let from, let to):
          state.isChanging = false
          if state.count == from { state.count = to }
          return .none
        }
      })
    reports.collect(store)
    store.send(.increment) { $0.isChanging = true }
    store.receive(.changed(from: 0, to: 1)) {
      $0.isChanging = false
      $0.count = 1
    }
    XCTAssertEqual(reports.failures, [])

    store.send(.increment) { $0.isChanging = false }
    store.receive(.changed(from: 1, to: 2)) {
      $0.isChanging = true
      $0.count = 1100
    }
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        A state change after sending increment does not match expectation: …

            \u{2007} TestStoreTests.State(
            \u{2007}   count: 1,
            −   isChanging: false
            +   isChanging: true
            \u{2007} )

        (Expected: −, Actual: +)
        """,
        """
        A state change after receiving changed(from: 1, to: 2) does not match expectation: …

            \u{2007} TestStoreTests.State(
            −   count: 1100,
            +   count: 2,
            −   isChanging: true
            +   isChanging: false
            \u{2007} )

        (Expected: −, Actual: +)
        """,
      ])
  }

  func testExpectedStateEqualityMustModify() {
    enum Action: Equatable, Sendable { case noop, finished }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: State(),
      reducer: Reduce<State, Action> { _, action in
        action == .noop ? .send(.finished) : .none
      })
    reports.collect(store)
    store.send(.noop)
    store.receive(.finished)
    XCTAssertEqual(reports.failures, [])

    store.send(.noop) { $0.count = 0 }
    store.receive(.finished) { $0.count = 0 }
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        "Expected state to change after sending noop, but no change occurred: the closure made "
          + "no observable modification; if no change is expected, omit the closure",
        "Expected state to change after receiving finished, but no change occurred: the "
          + "closure made no observable modification; if no change is expected, omit the "
          + "closure",
      ])
  }

  func testUnexpectedStateChangeFails() {
    enum Action: Equatable, Sendable { case first, second }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: State(),
      reducer: Reduce<State, Action> { state, action in
        state.count += 1
        return action == .first ? .send(.second) : .none
      })
    reports.collect(store)
    store.send(.first)
    store.receive(.second)
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        State was not expected to change after sending first, but a change occurred: …

            − TestStoreTests.State(count: 0)
            + TestStoreTests.State(count: 1)

        (Expected: −, Actual: +)
        """,
        """
        State was not expected to change after receiving second, but a change occurred: …

            − TestStoreTests.State(count: 1)
            + TestStoreTests.State(count: 2)

        (Expected: −, Actual: +)
        """,
      ])
  }

  func testReceiveActionMatchingPredicate() {
    enum Action: Equatable, Sendable { case noop, finished }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, action in action == .noop ? .send(.finished) : .none })
    reports.collect(store)
    var predicateCalls = 0
    store.send(.noop)
    store.receive({ action in
      predicateCalls += 1
      return action == .finished
    })
    XCTAssertGreaterThan(predicateCalls, 0)
    XCTAssertEqual(reports.failures, [])

    store.send(.noop)
    store.receive(.noop)
    store.send(.noop)
    store.receive({ $0 == .noop })
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        Received unexpected action: …

            − TestStoreTests.Action.noop
            + TestStoreTests.Action.finished

        (Expected: −, Received: +)
        """,
        """
        Received unexpected action: …

            TestStoreTests.Action.finished
        """,
      ])
  }

  /// Inside a state closure, the store's state is still the one before the step.
  func testStateAccess() {
    enum Action: Equatable, Sendable { case a, b, c, d }
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { count, action in
        count += 1
        return action == .a ? .merge(.send(.b), .send(.c), .send(.d)) : .none
      })
    store.send(.a) {
      $0 = 1
      XCTAssertEqual(store.state, 0)
    }
    XCTAssertEqual(store.state, 1)
    store.receive(.b) {
      $0 = 2
      XCTAssertEqual(store.state, 1)
    }
    XCTAssertEqual(store.state, 2)
    store.receive(.c) {
      $0 = 3
      XCTAssertEqual(store.state, 2)
    }
    store.receive(.d) {
      $0 = 4
      XCTAssertEqual(store.state, 3)
    }
    XCTAssertEqual(store.state, 4)
    store.finish()
  }

  struct Client: Sendable {
    var now: @Sendable () -> Int
    var fetch: @Sendable () -> Int

    /// What a feature's tests share: dependencies that fail the test when called.
    static let failing = Client(
      now: {
        XCTFail("now not expected")
        return 0
      },
      fetch: {
        XCTFail("fetch not expected")
        return 0
      })
  }

  struct ClientFeature: Reducer {
    let client: Client
    func reduce(into state: inout Int, action: Bool) -> Effect<Bool> {
      state = action ? client.fetch() : client.now()
      return .none
    }
  }

  func testOverrideDependenciesOnTestStore_Init() {
    let store = TestStore(initialState: 0, dependencies: Client.failing) {
      ClientFeature(client: $0)
    } withDependencies: {
      $0.fetch = { 42 }
      $0.now = { 1_234_567_890 }
    }
    store.send(true) { $0 = 42 }
    store.send(false) { $0 = 1_234_567_890 }
    store.finish()
  }

  /// For an answer that changes between steps, the closure reads what the test sets.
  func testOverrideDependenciesOnTestStore_MidwayChange() {
    let now = LockedBox(1_234_567_890)
    let store = TestStore(initialState: 0, dependencies: Client.failing) {
      ClientFeature(client: $0)
    } withDependencies: {
      $0.now = { now.value }
    }
    store.send(false) { $0 = 1_234_567_890 }
    now.set(987_654_321)
    store.send(false) { $0 = 987_654_321 }
    store.finish()
  }

  func testPrepareDependenciesCalledOnce() {
    var count = 0
    let store = TestStore(initialState: 0, dependencies: Client.failing) {
      ClientFeature(client: $0)
    } withDependencies: { _ in
      count += 1
    }
    XCTAssertEqual(count, 1)
    store.finish()
  }

  func testEffectEmitAfterSkipInFlightEffects() {
    enum Action: Equatable, Sendable { case tap, response }
    let clock = VirtualClock()
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { state, action in
        switch action {
        case .tap:
          return .run { send in
            try await clock.sleep(for: .seconds(1))
            await send(.response)
          }
        case .response:
          state = 42
          return .none
        }
      }, clock: clock)
    reports.collect(store)
    store.send(.tap)
    let effect = store.effectEvents.first?.effect ?? 0
    store.skipInFlightEffects()
    store.advance(by: .seconds(1))
    store.receive(.response) { $0 = 42 }
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(
      reports.skipped, ["1 in-flight effect(s) skipped:\n  effect \(effect) (run), started by tap"])
  }

  func testAssert_NonExhaustiveTestStore() {
    let reports = TestStoreReports()
    let store = TestStore(initialState: 0, reducer: EmptyReducer<Int, Bool>())
    reports.collect(store)
    store.exhaustivity = .off
    store.assert { $0 = 0 }
    store.assert { $0 = 1 }
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        A state change in assert does not match expectation: …

            − 1
            + 0

        (Expected: −, Actual: +)
        """
      ])
  }

  enum DelegateAction: Equatable, Sendable {
    case success(Int)

    var success: Int? {
      if case .success(let value) = self { value } else { nil }
    }
  }

  enum CaseAction: Equatable, Sendable {
    case tap
    case delegate(DelegateAction)

    var tap: Void? {
      if case .tap = self { () } else { nil }
    }

    var delegate: DelegateAction? {
      if case .delegate(let value) = self { value } else { nil }
    }

    static let delegateCase = CasePath<CaseAction, DelegateAction>(embed: CaseAction.delegate) {
      $0.delegate
    }
  }

  private func makeCaseStore(_ reports: TestStoreReports) -> TestStore<Int, CaseAction> {
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, CaseAction> { _, action in
        action == .tap ? .send(.delegate(.success(42))) : .none
      })
    reports.collect(store)
    return store
  }

  func testReceiveCaseKeyPath() {
    let reports = TestStoreReports()
    let store = makeCaseStore(reports)
    store.send(.tap)
    store.receive(\.delegate)
    store.send(.tap)
    store.receive(\.delegate?.success)
    store.send(.tap)
    store.receive(CaseAction.delegateCase)
    store.send(.tap)
    store.receive(\.delegate?.success)
    store.send(.tap)
    store.receive(\.tap)
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        Received unexpected action: …

            TestStoreTests.CaseAction.delegate(
              .success(42)
            )
        """
      ])
  }

  func testReceiveCaseKeyPathWithValue() {
    let reports = TestStoreReports()
    let store = makeCaseStore(reports)
    store.send(.tap)
    store.receive(\.delegate?.success, 42)
    store.send(.tap)
    store.receive(CaseAction.delegateCase, .success(42))
    XCTAssertEqual(reports.failures, [])

    store.send(.tap)
    store.receive(\.delegate?.success, 43)
    store.send(.tap)
    store.receive(CaseAction.delegateCase, .success(43))
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        Received unexpected action: …

            TestStoreTests.CaseAction.delegate(
              .success(42)
            )

        Its payload:

            − 43
            + 42

        (Expected: −, Received: +)
        """,
        """
        Received unexpected action: …

            \u{2007} TestStoreTests.CaseAction.delegate(
            −   .success(43)
            +   .success(42)
            \u{2007} )

        (Expected: −, Received: +)
        """,
      ])
  }

  // MARK: TCA's TestStoreFailureTests

  func testReceivedActionAfterDeinit() {
    enum Action: Equatable, Sendable { case first, second }
    let reports = TestStoreReports()
    var store: TestStore<Int, Action>? = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, action in action == .first ? .send(.second) : .none })
    reports.collect(store!)
    store?.send(.first)
    store = nil
    XCTAssertEqual(
      reports.failures,
      [
        "The store received 1 unexpected action(s): second; assert them with receive, skip "
          + "them with skipReceivedActions(), or make the test non-exhaustive"
      ])
  }

  func testEffectInFlightAfterDeinit() {
    let reports = TestStoreReports()
    let clock = VirtualClock()
    var store: TestStore<Int, Bool>? = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Bool> { _, _ in
        .run { _ in try await clock.sleep(for: .seconds(1)) }
      }, clock: clock)
    reports.collect(store!)
    store?.timeout = .zero
    store?.send(true)
    let effect = store?.effectEvents.first?.effect ?? 0
    store = nil
    XCTAssertEqual(
      reports.failures,
      [
        "1 effect(s) still running at the end of the test; cancel them, assert their actions, "
          + "or skip them with skipInFlightEffects():\n  effect \(effect) (run), started by true"
      ])
  }

  func testSendActionBeforeReceivingFailure() {
    enum Action: Equatable, Sendable { case first, second }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { state, action in
        if action == .second { state += 1 }
        return action == .first ? .send(.second) : .none
      })
    reports.collect(store)
    store.send(.first)
    // The action not received is taken as asserted: the send is judged on its own change.
    store.send(.first)
    store.receive(.second) { $0 = 2 }
    store.finish()
    XCTAssertEqual(
      reports.failures, ["Must handle 1 received action(s) before sending first: second"])
  }

  func testReceiveNonExistentActionFailure() {
    enum Action: Equatable, Sendable { case action }
    let reports = TestStoreReports()
    let store = TestStore(initialState: 0, reducer: EmptyReducer<Int, Action>())
    reports.collect(store)
    store.receive(.action)
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        "Expected to receive action, but no action was received; no effect is running that could send it"
      ])
  }

  func testReceiveUnexpectedActionBeforeTheExpectedOne() {
    enum Action: Equatable, Sendable { case first, second, third }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, action in
        action == .first ? .concatenate(.send(.second), .send(.third)) : .none
      })
    reports.collect(store)
    store.send(.first)
    store.receive(.third)
    store.receive(.third)
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        Received unexpected action before this one: …

            − TestStoreTests.Action.third
            + TestStoreTests.Action.second

        (Expected: −, Received: +)
        """
      ])
  }

  // MARK: Timeouts

  /// An effect that sleeps on a real clock resumes on the store's executor from another
  /// thread: `receive` waits for it, up to its timeout.
  func testReceiveWaitsForAnEffectWorkingOffTheExecutor() {
    enum Action: Equatable, Sendable { case tap, response }
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, action in
        guard action == .tap else { return .none }
        return .run { send in
          try await Task.sleep(for: .milliseconds(10))
          await send(.response)
        }
      })
    store.send(.tap)
    store.receive(.response, timeout: .seconds(10))
    store.finish()
  }

  func testReceiveFailsWhenNothingArrivesInTime() {
    enum Action: Equatable, Sendable { case tap, response }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, action in
        guard action == .tap else { return .none }
        return .run { send in
          try await Task.sleep(for: .seconds(60))
          await send(.response)
        }.cancellable(id: "slow")
      })
    reports.collect(store)
    store.send(.tap)
    store.receive(.response, timeout: .milliseconds(20))
    store.skipInFlightEffects()
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        "Expected to receive response, but no action was received after 0.02 seconds, with 1 "
          + "effect(s) running: one waiting on the VirtualClock needs advance(by:), and one "
          + "working off the store's executor may need a longer timeout"
      ])
  }

  /// `finish` waits for effects working off the executor to end.
  func testFinishWaitsForAnEffectWorkingOffTheExecutor() {
    let ended = LockedBox(false)
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Bool> { _, _ in
        .run { _ in
          try await Task.sleep(for: .milliseconds(10))
          ended.set(true)
        }
      })
    store.send(true)
    store.finish(timeout: .seconds(10))
    XCTAssertTrue(ended.value)
  }
}

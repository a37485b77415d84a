import ComposableCore
import ComposableTestSupport
import XCTest

/// Ports of TCA's `TestStoreNonExhaustiveTests`: a non-exhaustive test asserts what it names
/// and nothing else, a wrong assertion still fails, and `.off(showSkippedAssertions: true)`
/// reports what was skipped (TCA's expected failures) without failing.
final class TestStoreNonExhaustiveTests: XCTestCase {
  /// `true` counts and sends `false`, which counts too.
  private func makeBoolStore(_ reports: TestStoreReports) -> TestStore<Int, Bool> {
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Bool> { state, action in
        state += 1
        return action ? .send(false) : .none
      })
    reports.collect(store)
    return store
  }

  /// Effects that sleep on a clock nobody advances.
  private func makeSleepingStore(_ reports: TestStoreReports) -> TestStore<Int, Bool> {
    let clock = VirtualClock()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Bool> { _, _ in .run { _ in try await clock.sleep(for: .seconds(1)) } },
      clock: clock)
    reports.collect(store)
    return store
  }

  struct Counter: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var isEven = true
    }
    enum Action: Equatable, Sendable { case increment, decrement }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.count += action == .increment ? 1 : -1
      state.isEven.toggle()
      return .none
    }
  }

  private func makeCounter(_ reports: TestStoreReports) -> TestStore<Counter.State, Counter.Action>
  {
    let store = TestStore(initialState: Counter.State(), reducer: Counter())
    reports.collect(store)
    return store
  }

  struct NonExhaustiveReceive: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var int = 0
      var string = ""
    }
    enum Action: Equatable, Sendable {
      case onAppear
      case response1(Int)
      case response2(String)

      var onAppear: Void? { if case .onAppear = self { () } else { nil } }
      var response1: Int? { if case .response1(let value) = self { value } else { nil } }
      var response2: String? { if case .response2(let value) = self { value } else { nil } }
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .onAppear:
        state = State()
        return .merge(.send(.response1(42)), .send(.response2("Hello")))
      case .response1(let int):
        state.count += 1
        state.int = int
        return .none
      case .response2(let string):
        state.count += 1
        state.string = string
        return .none
      }
    }
  }

  private func makeReceiveStore(_ reports: TestStoreReports) -> TestStore<
    NonExhaustiveReceive.State, NonExhaustiveReceive.Action
  > {
    let store = TestStore(
      initialState: NonExhaustiveReceive.State(), reducer: NonExhaustiveReceive())
    reports.collect(store)
    return store
  }

  // MARK: Skipping received actions

  func testSkipReceivedActions_NonStrict() {
    let reports = TestStoreReports()
    let store = makeBoolStore(reports)
    store.send(true) { $0 = 1 }
    XCTAssertEqual(store.state, 1)
    store.skipReceivedActions(strict: false)
    XCTAssertEqual(store.state, 2)
    store.skipReceivedActions(strict: false)
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, ["1 received action(s) skipped: false"])
  }

  func testSkipReceivedActions_Strict() {
    let reports = TestStoreReports()
    let store = makeBoolStore(reports)
    store.send(true) { $0 = 1 }
    store.receive(false) { $0 = 2 }
    XCTAssertEqual(store.state, 2)
    store.skipReceivedActions(strict: true)
    store.finish()
    XCTAssertEqual(reports.failures, ["There were no received actions to skip"])
  }

  func testSkipReceivedActions_NonExhaustive() {
    let reports = TestStoreReports()
    let store = makeBoolStore(reports)
    store.exhaustivity = .off
    store.send(true) { $0 = 1 }
    store.skipReceivedActions(strict: false)
    XCTAssertEqual(store.state, 2)
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, [])
  }

  func testSkipReceivedActions_PartialExhaustive() {
    let reports = TestStoreReports()
    let store = makeBoolStore(reports)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(true) { $0 = 1 }
    store.skipReceivedActions(strict: false)
    XCTAssertEqual(store.state, 2)
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, ["1 received action(s) skipped: false"])
  }

  // MARK: Skipping in-flight effects

  func testSkipInFlightEffects_NonStrict() {
    let reports = TestStoreReports()
    let store = makeSleepingStore(reports)
    store.send(true)
    let effect = store.effectEvents.first?.effect ?? 0
    store.skipInFlightEffects(strict: false)
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(
      reports.skipped, ["1 in-flight effect(s) skipped:\n  effect \(effect) (run), started by true"]
    )
    XCTAssertEqual(store.effectsInFlight, 0, "the end of the test cancels skipped effects")
  }

  func testSkipInFlightEffects_Strict() {
    let reports = TestStoreReports()
    let store = TestStore(initialState: 0, reducer: Reduce<Int, Bool> { _, _ in .run { _ in } })
    reports.collect(store)
    store.send(true)
    store.skipInFlightEffects(strict: true)
    store.finish()
    XCTAssertEqual(reports.failures, ["There were no in-flight effects to skip"])
  }

  func testSkipInFlightEffects_NonExhaustive() {
    let reports = TestStoreReports()
    let store = makeSleepingStore(reports)
    store.exhaustivity = .off
    store.send(true)
    store.skipInFlightEffects(strict: false)
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, [])
  }

  // MARK: What a non-exhaustive test may leave out

  /// Received actions need not be received before the end.
  func testIgnoreReceivedActions_PartialExhaustive() {
    let reports = TestStoreReports()
    let store = makeBoolStore(reports)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(true)
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(
      reports.skipped,
      [
        """
        State was not expected to change after sending true, but a change occurred: …

            − 0
            + 1

        (Expected: −, Actual: +)
        """,
        "The store received 1 unexpected action(s): false; assert them with receive, skip them "
          + "with skipReceivedActions(), or make the test non-exhaustive",
      ])
  }

  func testIgnoreReceivedActions_NonExhaustive() {
    let reports = TestStoreReports()
    let store = makeBoolStore(reports)
    store.exhaustivity = .off
    store.send(true)
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, [])
  }

  /// Effects need not end before the end; they are cancelled then.
  func testIgnoreInFlightEffects_PartialExhaustive() {
    let reports = TestStoreReports()
    let store = makeSleepingStore(reports)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(true)
    let effect = store.effectEvents.first?.effect ?? 0
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(
      reports.skipped,
      [
        "1 effect(s) still running at the end of the test; cancel them, assert their actions, "
          + "or skip them with skipInFlightEffects():\n  effect \(effect) (run), started by true"
      ])
    XCTAssertEqual(store.effectsInFlight, 0)
  }

  func testIgnoreInFlightEffects_NonExhaustive() {
    let reports = TestStoreReports()
    let store = makeSleepingStore(reports)
    store.exhaustivity = .off
    store.send(true)
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, [])
    XCTAssertEqual(store.effectsInFlight, 0)
  }

  // MARK: State assertions

  /// A closure asserts only what it sets; what it leaves out is a skipped assertion.
  func testNonExhaustiveSend_PartialExhaustive() {
    let reports = TestStoreReports()
    let store = makeCounter(reports)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(.increment) { $0.count = 1 }
    store.send(.increment) { $0.isEven = true }
    store.send(.increment) {
      $0.count = 3
      $0.isEven = false
    }
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(
      reports.skipped,
      [
        """
        A state change after sending increment does not match expectation: …

            \u{2007} TestStoreNonExhaustiveTests.Counter.State(
            \u{2007}   count: 1,
            −   isEven: true
            +   isEven: false
            \u{2007} )

        (Expected: −, Actual: +)
        """,
        """
        A state change after sending increment does not match expectation: …

            \u{2007} TestStoreNonExhaustiveTests.Counter.State(
            −   count: 1,
            +   count: 2,
            \u{2007}   isEven: true
            \u{2007} )

        (Expected: −, Actual: +)
        """,
      ])
  }

  /// A wrong assertion fails even so.
  func testNonExhaustiveSend_PartialExhaustive_BadAssertion() {
    let reports = TestStoreReports()
    let store = makeCounter(reports)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(.increment) { $0.count = 0 }
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        A state change after sending increment does not match expectation: …

            \u{2007} TestStoreNonExhaustiveTests.Counter.State(
            −   count: 0,
            +   count: 1,
            \u{2007}   isEven: false
            \u{2007} )

        (Expected: −, Actual: +)
        """
      ])
  }

  func testNonExhaustiveSend_NonExhaustive() {
    let reports = TestStoreReports()
    let store = makeCounter(reports)
    store.exhaustivity = .off
    store.send(.increment) { $0.count = 1 }
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, [])
  }

  /// Sending skips the received actions not asserted, and judges the send on the state after
  /// them.
  func testSend_SkipReceivedActions() {
    struct State: Equatable, Sendable {
      var count = 0
      var isLoggedIn = false
    }
    enum Action: Equatable, Sendable {
      case decrement
      case increment
      case loggedInResponse(Bool)
    }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: State(),
      reducer: Reduce<State, Action> { state, action in
        switch action {
        case .decrement:
          state.count -= 1
          return .none
        case .increment:
          state.count += 1
          return .send(.loggedInResponse(true))
        case .loggedInResponse(let response):
          state.isLoggedIn = response
          return .none
        }
      })
    reports.collect(store)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(.increment) { $0.count = 1 }
    store.send(.decrement) { $0.count = 0 }
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, ["1 received action(s) skipped: loggedInResponse(true)"])
    XCTAssertEqual(store.state, State(count: 0, isLoggedIn: true))
  }

  /// A wrong assertion on a received action fails even so.
  func testReceive_BadAssertion() {
    struct State: Equatable, Sendable {
      var count = 0
      var isLoggedIn = false
    }
    enum Action: Equatable, Sendable {
      case increment
      case loggedInResponse(Bool)
    }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: State(),
      reducer: Reduce<State, Action> { state, action in
        switch action {
        case .increment:
          state.count += 1
          return .send(.loggedInResponse(true))
        case .loggedInResponse(let response):
          state.isLoggedIn = response
          return .none
        }
      })
    reports.collect(store)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(.increment) { $0.count = 1 }
    store.receive(.loggedInResponse(true)) {
      $0.count = 2
      $0.isLoggedIn = true
    }
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        A state change after receiving loggedInResponse(true) does not match expectation: …

            \u{2007} TestStoreNonExhaustiveTests.State(
            −   count: 2,
            +   count: 1,
            \u{2007}   isLoggedIn: true
            \u{2007} )

        (Expected: −, Actual: +)
        """
      ])
  }

  func testMultipleSendsWithAssertionOnLast() {
    let reports = TestStoreReports()
    let store = makeCounter(reports)
    store.exhaustivity = .off
    store.send(.increment)
    XCTAssertEqual(store.state, Counter.State(count: 1, isEven: false))
    store.send(.increment)
    XCTAssertEqual(store.state, Counter.State(count: 2, isEven: true))
    store.send(.increment) { $0.count = 3 }
    XCTAssertEqual(store.state, Counter.State(count: 3, isEven: false))
    store.finish()
    XCTAssertEqual(reports.failures, [])
  }

  func testReceive_StateChange() {
    let reports = TestStoreReports()
    let store = makeReceiveStore(reports)
    store.exhaustivity = .off
    store.send(.onAppear)
    XCTAssertEqual(store.state, NonExhaustiveReceive.State(count: 0, int: 0, string: ""))
    store.receive(.response1(42)) { $0.int = 42 }
    XCTAssertEqual(store.state, NonExhaustiveReceive.State(count: 1, int: 42, string: ""))
    store.receive(.response2("Hello")) { $0.string = "Hello" }
    XCTAssertEqual(store.state, NonExhaustiveReceive.State(count: 2, int: 42, string: "Hello"))
    store.finish()
    XCTAssertEqual(reports.failures, [])
  }

  /// `receive` takes the first matching action, skipping those before it.
  func testReceive_SkipAction() {
    let reports = TestStoreReports()
    let store = makeReceiveStore(reports)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(.onAppear)
    store.receive(.response2("Hello")) {
      $0.count = 2
      $0.string = "Hello"
    }
    XCTAssertEqual(store.state, NonExhaustiveReceive.State(count: 2, int: 42, string: "Hello"))
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, ["1 received action(s) skipped: response1(42)"])
  }

  func testSendWithUnreceivedActions_SkipsActions() {
    enum Action: Equatable, Sendable {
      case tap
      case response(Int)
    }
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { state, action in
        switch action {
        case .tap:
          state += 1
          return .run { [state] send in await send(.response(state + 42)) }
        case .response(let number):
          state = number
          return .none
        }
      })
    reports.collect(store)
    store.exhaustivity = .off
    store.send(.tap)
    XCTAssertEqual(store.state, 1)
    store.send(.tap)
    XCTAssertEqual(store.state, 44)
    store.skipReceivedActions()
    XCTAssertEqual(store.state, 86)
    store.finish()
    XCTAssertEqual(reports.failures, [])
  }

  /// Part of a test exhaustive, the rest not, on a virtual clock.
  func testPartialExhaustivityPrefix() {
    enum Action: Equatable, Sendable {
      case buttonTapped
      case response(Int)
    }
    let clock = VirtualClock()
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { state, action in
        switch action {
        case .buttonTapped:
          state += 1
          return .run { send in
            await send(.response(42))
            try await clock.sleep(for: .seconds(1))
            await send(.response(1729))
          }
        case .response(let number):
          state = number
          return .none
        }
      }, clock: clock)
    reports.collect(store)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(.buttonTapped)
    let first = store.effectEvents.first?.effect ?? 0
    store.advance(by: .milliseconds(500))
    store.send(.buttonTapped) { $0 = 43 }
    store.advance(by: .milliseconds(500))
    store.skipInFlightEffects()
    store.skipReceivedActions()
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(
      reports.skipped,
      [
        """
        State was not expected to change after sending buttonTapped, but a change occurred: …

            − 0
            + 1

        (Expected: −, Actual: +)
        """,
        "1 received action(s) skipped: response(42)",
        "1 in-flight effect(s) skipped:\n  effect \(first + 1) (run), started by buttonTapped",
        "2 received action(s) skipped: response(42), response(1729)",
      ])
    XCTAssertEqual(store.state, 1729)
  }

  /// `withExhaustivity` makes one part of an exhaustive test non-exhaustive, and restores it.
  func testWithExhaustivity() {
    let reports = TestStoreReports()
    let store = makeBoolStore(reports)
    store.withExhaustivity(.off) {
      store.send(true)
      store.receive(false)
      XCTAssertEqual(store.exhaustivity, .off)
    }
    XCTAssertEqual(store.exhaustivity, .on)
    store.send(true) { $0 = 3 }
    store.receive(false)
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        """
        State was not expected to change after receiving false, but a change occurred: …

            − 3
            + 4

        (Expected: −, Actual: +)
        """
      ])
    XCTAssertEqual(reports.skipped, [])
  }

  // MARK: Receiving by case

  func testCasePathReceive_PartialExhaustive() {
    let reports = TestStoreReports()
    let store = makeReceiveStore(reports)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(.onAppear)
    store.receive(\.response1) { $0.int = 42 }
    store.receive(\.response2) { $0.string = "Hello" }
    store.finish()
    XCTAssertEqual(reports.failures, [])
    // Each closure left out the count the action changed.
    XCTAssertEqual(
      reports.skipped,
      [
        """
        A state change after receiving response1(42) does not match expectation: …

            \u{2007} TestStoreNonExhaustiveTests.NonExhaustiveReceive.State(
            −   count: 0,
            +   count: 1,
            \u{2007}   int: 42,
            \u{2007}   string: ""
            \u{2007} )

        (Expected: −, Actual: +)
        """,
        """
        A state change after receiving response2("Hello") does not match expectation: …

            \u{2007} TestStoreNonExhaustiveTests.NonExhaustiveReceive.State(
            −   count: 1,
            +   count: 2,
            \u{2007}   int: 42,
            \u{2007}   string: "Hello"
            \u{2007} )

        (Expected: −, Actual: +)
        """,
      ])
  }

  func testCasePathReceive_NonExhaustive() {
    let reports = TestStoreReports()
    let store = makeReceiveStore(reports)
    store.exhaustivity = .off
    store.send(.onAppear)
    store.receive(\.response1) { $0.int = 42 }
    store.receive(\.response2) { $0.string = "Hello" }
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(reports.skipped, [])
  }

  func testCasePathReceive_Exhaustive() {
    let reports = TestStoreReports()
    let store = makeReceiveStore(reports)
    store.send(.onAppear)
    store.receive(\.response1) {
      $0.count = 1
      $0.int = 42
    }
    store.receive(\.response2) {
      $0.count = 2
      $0.string = "Hello"
    }
    store.finish()
    XCTAssertEqual(reports.failures, [])
  }

  /// An action that is not `Equatable` is received by its case or by a predicate.
  func testCasePathReceive_Exhaustive_NonEquatable() {
    struct NonEquatable: Sendable {}
    enum Action: Sendable {
      case tap
      case response(NonEquatable)

      var response: NonEquatable? { if case .response(let value) = self { value } else { nil } }
    }
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { _, action in
        if case .tap = action { return .send(.response(NonEquatable())) }
        return .none
      })
    store.send(.tap)
    store.receive(\.response)
    store.send(.tap)
    store.receive({ if case .response = $0 { true } else { false } })
    store.finish()
  }

  func testCasePathReceive_SkipReceivedAction() {
    let reports = TestStoreReports()
    let store = makeReceiveStore(reports)
    store.exhaustivity = .off
    store.send(.onAppear)
    store.receive(\.response2) { $0.string = "Hello" }
    store.finish()
    XCTAssertEqual(reports.failures, [])
  }

  func testCasePathReceive_WrongAction() {
    let reports = TestStoreReports()
    let store = makeReceiveStore(reports)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(.onAppear)
    store.receive(\.onAppear)
    store.receive(\.response1)
    store.receive(\.response2)
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        "Expected to receive an action matching the case path to a case without payload, but "
          + "none of the 2 received matched; no effect is running that could send it"
      ])
  }

  func testCasePathReceive_ReceivedExtraAction() {
    let reports = TestStoreReports()
    let store = makeReceiveStore(reports)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(.onAppear)
    store.receive(\.response2)
    store.receive(\.response2)
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        "Expected to receive an action matching the case path to String, but no action was "
          + "received; no effect is running that could send it"
      ])
  }

  // MARK: Timeouts

  private enum Timed: Equatable, Sendable { case tap, response1, response2 }

  /// A store, not exhaustive, whose tap sends `first` and `second`, each 10 ms of real time
  /// after the one before.
  private func tapSending(_ first: Timed, _ second: Timed) -> (
    TestStore<Int, Timed>, TestStoreReports
  ) {
    let reports = TestStoreReports()
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Timed> { _, action in
        guard action == .tap else { return .none }
        return .run { send in
          try await Task.sleep(for: .milliseconds(10))
          await send(first)
          try await Task.sleep(for: .milliseconds(10))
          await send(second)
        }
      })
    reports.collect(store)
    store.exhaustivity = .off
    return (store, reports)
  }

  /// The action named may come after others, each after real time.
  func testReceiveNonExhaustiveWithTimeout() {
    let (store, reports) = tapSending(.response1, .response2)
    store.send(.tap)
    store.receive(.response2, timeout: .seconds(10))
    store.finish()
    XCTAssertEqual(reports.failures, [])
  }

  func testReceiveNonExhaustiveWithTimeoutMultipleNonMatching() {
    let (store, reports) = tapSending(.response1, .response1)
    store.send(.tap)
    store.receive(.response2, timeout: .seconds(10))
    store.finish()
    XCTAssertEqual(
      reports.failures,
      [
        "Expected to receive response2, but none of the 2 received matched; no effect is "
          + "running that could send it"
      ])
  }

  func testReceiveNonExhaustiveWithTimeoutMultipleMatching() {
    let (store, reports) = tapSending(.response2, .response2)
    store.send(.tap)
    store.receive(.response2, timeout: .seconds(10))
    store.receive(.response2, timeout: .seconds(10))
    store.finish()
    XCTAssertEqual(reports.failures, [])
  }

  func testNonExhaustive_ShowSkippedAssertions_ExpectedStateToChange() {
    let reports = TestStoreReports()
    let store = TestStore(initialState: 0, reducer: EmptyReducer<Int, Bool>())
    reports.collect(store)
    store.exhaustivity = .off(showSkippedAssertions: true)
    store.send(true) { $0 = 0 }
    store.assert { $0 = 0 }
    store.finish()
    XCTAssertEqual(reports.failures, [])
    XCTAssertEqual(
      reports.skipped,
      [
        "Expected state to change after sending true, but no change occurred: the closure made "
          + "no observable modification; if no change is expected, omit the closure"
      ])
  }

  // The examples of Krzysztof Zabłocki's "Exhaustive testing in TCA", as TCA's tests have them.

  struct KrzysztofExample: Reducer {
    struct State: Equatable, Sendable {
      var name = "Krzysztof"
      var surname = "Zabłocki"
      var age = 33
      var mood = 0
    }
    enum Action: Equatable, Sendable {
      case changeIdentity(name: String, surname: String)
      case changeAge(Int)
      case changeMood(Int)
      case advanceAgeAndMoodAfterDelay
    }
    let clock: VirtualClock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .changeIdentity(let name, let surname):
        state.name = name
        state.surname = surname
        return .none
      case .advanceAgeAndMoodAfterDelay:
        return .run { [state, clock] send in
          try await clock.sleep(for: .seconds(1))
          await send(.changeAge(state.age + 1))
          await send(.changeMood(state.mood + 1))
        }
      case .changeAge(let age):
        state.age = age
        return .none
      case .changeMood(let mood):
        state.mood = mood
        return .none
      }
    }
  }

  private func makeKrzysztofStore(_ clock: VirtualClock = VirtualClock()) -> TestStore<
    KrzysztofExample.State, KrzysztofExample.Action
  > {
    let store = TestStore(
      initialState: KrzysztofExample.State(), reducer: KrzysztofExample(clock: clock),
      clock: clock)
    store.exhaustivity = .off
    return store
  }

  func testKrzysztofExample1() {
    let store = makeKrzysztofStore()
    store.send(.changeIdentity(name: "Marek", surname: "Ignored")) { $0.name = "Marek" }
    store.finish()
  }

  func testKrzysztofExample2() {
    let store = makeKrzysztofStore()
    store.send(.changeIdentity(name: "Adam", surname: "Stern"))
    store.send(.changeIdentity(name: "Piotr", surname: "Galiszewski"))
    store.send(.changeIdentity(name: "Merowing", surname: "Info")) {
      $0.name = "Merowing"
      $0.surname = "Info"
    }
    store.finish()
  }

  func testKrzysztofExample3() {
    let clock = VirtualClock()
    let store = makeKrzysztofStore(clock)
    store.send(.advanceAgeAndMoodAfterDelay)
    store.advance(by: .seconds(1))
    store.receive(.changeAge(34)) { $0.age = 34 }
    XCTAssertEqual(store.state.age, 34)
    store.finish()
  }
}

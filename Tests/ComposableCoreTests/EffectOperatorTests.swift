import ComposableCore
import ComposableTestSupport
import XCTest

/// Pins the meaning of every effect operator against a virtual clock.
final class EffectOperatorTests: XCTestCase {
  struct State: Equatable, Sendable {
    var values: [Int] = []
  }

  enum Action: Equatable, Sendable {
    case start
    case startValue(Int)
    case stop
    case value(Int)
  }

  /// A store whose `.start` returns `effect`, whose `.startValue(n)` returns `effect(n)`, and
  /// which records every `.value`.
  private func makeStore(
    clock: VirtualClock = VirtualClock(),
    start: @escaping @Sendable (Int) -> Effect<Action>,
    stop: @escaping @Sendable () -> Effect<Action> = { .none }
  ) -> TestStore<State, Action> {
    TestStore(
      initialState: State(),
      reducer: Reduce<State, Action> { state, action in
        switch action {
        case .start: return start(0)
        case .startValue(let n): return start(n)
        case .stop: return stop()
        case .value(let n):
          state.values.append(n)
          return .none
        }
      },
      clock: clock)
  }

  func testSendIsReducedRightAfterTheActionInOrder() {
    let store = makeStore { _ in .merge(.send(.value(1)), .send(.value(2))) }
    store.send(.start)
    store.receive(.value(1)) { $0.values = [1] }
    store.receive(.value(2)) { $0.values = [1, 2] }
    store.finish()
  }

  func testRunSendsAfterSleepingOnTheClock() {
    let clock = VirtualClock()
    let store = makeStore(clock: clock) { _ in
      .run { send in
        try await clock.sleep(for: .seconds(1))
        await send(.value(1))
      }
    }
    store.send(.start)
    store.advance(by: .milliseconds(999))
    XCTAssertEqual(store.effectsInFlight, 1)
    store.advance(by: .milliseconds(1))
    store.receive(.value(1)) { $0.values = [1] }
    store.finish()
  }

  func testMergeRunsConcurrently() {
    let clock = VirtualClock()
    let store = makeStore(clock: clock) { _ in
      .merge(
        .run { send in
          try await clock.sleep(for: .seconds(2))
          await send(.value(2))
        },
        .run { send in
          try await clock.sleep(for: .seconds(1))
          await send(.value(1))
        })
    }
    store.send(.start)
    store.advance(by: .seconds(1))
    store.receive(.value(1)) { $0.values = [1] }
    store.advance(by: .seconds(1))
    store.receive(.value(2)) { $0.values = [1, 2] }
    store.finish()
  }

  func testConcatenateStartsEachAfterThePreviousFinished() {
    let clock = VirtualClock()
    let store = makeStore(clock: clock) { _ in
      .concatenate(
        .run { send in
          try await clock.sleep(for: .seconds(2))
          await send(.value(1))
        },
        .run { send in
          try await clock.sleep(for: .seconds(1))
          await send(.value(2))
        })
    }
    store.send(.start)
    store.advance(by: .seconds(2))
    store.receive(.value(1)) { $0.values = [1] }
    // The second effect's one-second sleep only began when the first finished.
    store.advance(by: .milliseconds(999))
    store.advance(by: .milliseconds(1))
    store.receive(.value(2)) { $0.values = [1, 2] }
    store.finish()
  }

  func testConcatenatedSendsKeepTheirOrder() {
    let store = makeStore { _ in .concatenate(.send(.value(1)), .send(.value(2))) }
    store.send(.start)
    store.receive(.value(1)) { $0.values = [1] }
    store.receive(.value(2)) { $0.values = [1, 2] }
    store.finish()
  }

  /// As in TCA, a `.send` is delivered at once, also at the head of a cancellable
  /// concatenation: `willRun` is counted before any later input can be reduced, and the rest
  /// waits for the executor.
  func testTheSynchronousHeadOfAConcatenationIsReducedAtOnce() {
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let values = StoreActor.assumeIsolated { () -> ([Int], [Int]) in
      let store = Store(
        initialState: State(),
        reducer: Reduce<State, Action> { state, action in
          switch action {
          case .start:
            return .concatenate(
              .send(.value(1)), .run { send in await send(.value(2)) }, .send(.value(3))
            )
            .cancellable(id: "work")
          case .value(let n):
            state.values.append(n)
            return .none
          case .startValue, .stop:
            return .none
          }
        })
      store.send(.start)
      let beforeTheExecutorRan = store.state.values
      executor.runUntilIdle()
      return (beforeTheExecutorRan, store.state.values)
    }
    XCTAssertEqual(values.0, [1])
    XCTAssertEqual(values.1, [1, 2, 3])
  }

  func testMapTransformsEveryAction() {
    let store = makeStore { _ in
      Effect<Int>.merge(.send(1), .run { send in await send(2) }).map { Action.value($0 * 10) }
    }
    store.send(.start)
    store.receive(.value(10)) { $0.values = [10] }
    store.receive(.value(20)) { $0.values = [10, 20] }
    store.finish()
  }

  func testCancelStopsTheEffectAndDropsItsActions() {
    let clock = VirtualClock()
    let store = makeStore(
      clock: clock,
      start: { _ in
        .run { send in
          try await clock.sleep(for: .seconds(1))
          await send(.value(1))
        }
        .cancellable(id: "timer")
      },
      stop: { .cancel(id: "timer") })
    store.send(.start)
    store.send(.stop)
    store.advance(by: .seconds(5))
    store.finish()
  }

  func testCancelInFlightKeepsOnlyTheLatest() {
    let clock = VirtualClock()
    let store = makeStore(clock: clock) { n in
      .run { send in
        try await clock.sleep(for: .seconds(1))
        await send(.value(n))
      }
      .cancellable(id: "request", cancelInFlight: true)
    }
    store.send(.startValue(1))
    store.advance(by: .milliseconds(500))
    store.send(.startValue(2))
    store.advance(by: .seconds(1))
    store.receive(.value(2)) { $0.values = [2] }
    store.finish()
  }

  func testCancellationDropsAResponseThatRacedWithIt() {
    // The work finishes, but its send happens after cancellation: it must not be delivered.
    let clock = VirtualClock()
    let store = makeStore(
      clock: clock,
      start: { _ in
        .run { send in
          try? await clock.sleep(for: .seconds(1))
          await send(.value(1))
        }
        .cancellable(id: "work")
      },
      stop: { .cancel(id: "work") })
    store.send(.start)
    store.send(.stop)
    store.advance(by: .seconds(1))
    store.finish()
  }

  func testDebounceDeliversOnlyAfterQuiet() {
    let clock = VirtualClock()
    let store = makeStore(clock: clock) { n in
      Effect<Action>.send(.value(n)).debounce(id: "search", for: .seconds(1), clock: clock)
    }
    store.send(.startValue(1))
    store.advance(by: .milliseconds(600))
    store.send(.startValue(2))
    store.advance(by: .milliseconds(600))
    store.send(.startValue(3))
    store.advance(by: .milliseconds(999))
    store.advance(by: .milliseconds(1))
    store.receive(.value(3)) { $0.values = [3] }
    store.finish()
  }

  func testThrottleLatestDeliversFirstAtOnceThenTheLatestAtTheEndOfTheInterval() {
    let clock = VirtualClock()
    let store = makeStore(clock: clock) { n in
      Effect<Action>.send(.value(n))
        .throttle(id: "loading", for: .seconds(1), clock: clock, latest: true)
    }
    store.send(.startValue(1))
    store.receive(.value(1)) { $0.values = [1] }
    store.advance(by: .milliseconds(300))
    store.send(.startValue(2))
    store.advance(by: .milliseconds(300))
    store.send(.startValue(3))
    store.advance(by: .milliseconds(399))
    store.advance(by: .milliseconds(1))
    store.receive(.value(3)) { $0.values = [1, 3] }
    // After a quiet interval the next one passes at once again.
    store.advance(by: .seconds(2))
    store.send(.startValue(4))
    store.receive(.value(4)) { $0.values = [1, 3, 4] }
    store.finish()
  }

  func testThrottleNotLatestDeliversTheFirstHeld() {
    let clock = VirtualClock()
    let store = makeStore(clock: clock) { n in
      Effect<Action>.send(.value(n))
        .throttle(id: "loading", for: .seconds(1), clock: clock, latest: false)
    }
    store.send(.startValue(1))
    store.receive(.value(1)) { $0.values = [1] }
    store.send(.startValue(2))
    store.send(.startValue(3))
    store.advance(by: .seconds(1))
    store.receive(.value(2)) { $0.values = [1, 2] }
    store.finish()
  }

  func testTimerTicksAtTheIntervalUntilCancelled() {
    let clock = VirtualClock()
    let store = makeStore(
      clock: clock,
      start: { _ in
        .run { send in
          var tick = 0
          for await _ in clock.timer(interval: .seconds(3)) {
            tick += 1
            await send(.value(tick))
          }
        }
        .cancellable(id: "timer", cancelInFlight: true)
      },
      stop: { .cancel(id: "timer") })
    store.send(.start)
    store.advance(by: .seconds(3))
    store.receive(.value(1)) { $0.values = [1] }
    store.advance(by: .seconds(6))
    store.receive(.value(2)) { $0.values = [1, 2] }
    store.receive(.value(3)) { $0.values = [1, 2, 3] }
    store.send(.stop)
    store.advance(by: .seconds(10))
    store.finish()
  }

  func testRunCatchHandlesErrors() {
    struct Failure: Error {}
    let store = makeStore { _ in
      .run { _ in
        throw Failure()
      } catch: { _, send in
        await send(.value(-1))
      }
    }
    store.send(.start)
    store.receive(.value(-1)) { $0.values = [-1] }
    store.finish()
  }

  func testCancellationIDsAreScopedPerStore() {
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let clock = VirtualClock()
    let (first, second) = StoreActor.assumeIsolated {
      let reducer = Reduce<State, Action> { state, action in
        switch action {
        case .start:
          return .run { send in
            try await clock.sleep(for: .seconds(1))
            await send(.value(1))
          }
          .cancellable(id: "shared")
        case .stop:
          return .cancel(id: "shared")
        case .value(let n):
          state.values.append(n)
          return .none
        case .startValue:
          return .none
        }
      }
      return (
        Store(initialState: State(), reducer: reducer),
        Store(initialState: State(), reducer: reducer)
      )
    }
    StoreActor.assumeIsolated {
      first.send(.start)
      second.send(.start)
      second.send(.stop)
    }
    executor.runUntilIdle()
    clock.advance(by: .seconds(1)) { executor.runUntilIdle() }
    XCTAssertEqual(StoreActor.assumeIsolated { first.state.values }, [1])
    XCTAssertEqual(StoreActor.assumeIsolated { second.state.values }, [])
  }
}

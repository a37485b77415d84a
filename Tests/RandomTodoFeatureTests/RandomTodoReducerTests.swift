import ComposableDependencies
import ComposableTestSupport
import RandomTodoFeature
import XCTest

/// Exhaustive tests of the random todo screen: the 3 s timer, the manual refresh's order, and
/// what happens to responses around a stop.
final class RandomTodoReducerTests: XCTestCase {
  private let clock = VirtualClock()
  /// The ids the fetches asked for, in order.
  private let requested = LockedBox<[Int]>([])

  private static func todo(_ id: Int) -> Todo {
    Todo(userId: 1, id: id, title: "todo \(id)", completed: id.isMultiple(of: 2))
  }

  /// A store whose random ids count up from 1 and whose fetches take `latency` of virtual time.
  private func makeStore(
    _ state: RandomTodoState = RandomTodoState(), latency: Duration = .zero,
    fetch: (@Sendable (Int) throws -> Todo)? = nil
  ) -> TestStore<RandomTodoState, RandomTodoAction> {
    let nextID = LockedBox(0)
    let fetch = fetch ?? { Self.todo($0) }
    let dependencies = RandomTodoDependencies(
      fetchTodo: { [clock, requested] id in
        requested.append(id)
        if latency > .zero { try await clock.sleep(for: latency) }
        return try fetch(id)
      },
      randomTodoID: {
        nextID.withValue {
          $0 += 1
          return $0
        }
      },
      clock: clock)
    return TestStore(
      initialState: state, reducer: RandomTodoReducer(dependencies: dependencies), clock: clock)
  }

  func testAutoRefreshFetchesEveryThreeSecondsUntilStopped() {
    let store = makeStore()
    store.send(.viewDidAppear) { $0.isAutoRefreshing = true }
    store.advance(by: .milliseconds(2_999))
    store.advance(by: .milliseconds(1))
    store.receive(.timerTicked) { $0.isFetching = true }
    store.receive(.fetchResult(.success(Self.todo(1)))) {
      $0.isFetching = false
      $0.todo = Self.todo(1)
    }
    store.advance(by: .seconds(3))
    store.receive(.timerTicked) { $0.isFetching = true }
    store.receive(.fetchResult(.success(Self.todo(2)))) {
      $0.isFetching = false
      $0.todo = Self.todo(2)
    }
    store.send(.stopRandomText) { $0.isAutoRefreshing = false }
    store.advance(by: .seconds(30))
    store.finish()
    XCTAssertEqual(requested.value, [1, 2])
  }

  func testAppearingTwiceStartsOneTimer() {
    let store = makeStore()
    store.send(.viewDidAppear) { $0.isAutoRefreshing = true }
    store.advance(by: .seconds(1))
    store.send(.viewDidAppear)
    store.advance(by: .seconds(2))
    store.receive(.timerTicked) { $0.isFetching = true }
    store.receive(.fetchResult(.success(Self.todo(1)))) {
      $0.isFetching = false
      $0.todo = Self.todo(1)
    }
    store.send(.stopRandomText) { $0.isAutoRefreshing = false }
    store.finish()
  }

  func testClickStopsTheTimerThenFetchesOnce() {
    let store = makeStore()
    store.send(.viewDidAppear) { $0.isAutoRefreshing = true }
    store.send(.clickButton) {
      $0.isAutoRefreshing = false
      $0.isFetching = true
    }
    store.receive(.fetchResult(.success(Self.todo(1)))) {
      $0.isFetching = false
      $0.todo = Self.todo(1)
    }
    // The timer was cancelled before the fetch: nothing more ever happens.
    store.advance(by: .seconds(30))
    store.finish()
    XCTAssertEqual(requested.value, [1])
  }

  func testStoppingWhenNothingRunsIsHarmless() {
    let store = makeStore()
    store.send(.stopRandomText)
    store.finish()
  }

  func testAResponseArrivingAfterStopIsStillShownButNoMoreFetchesHappen() {
    let store = makeStore(latency: .seconds(1))
    store.send(.viewDidAppear) { $0.isAutoRefreshing = true }
    store.advance(by: .seconds(3))
    store.receive(.timerTicked) { $0.isFetching = true }
    store.advance(by: .milliseconds(500))
    store.send(.stopRandomText) { $0.isAutoRefreshing = false }
    store.advance(by: .milliseconds(500))
    store.receive(.fetchResult(.success(Self.todo(1)))) {
      $0.isFetching = false
      $0.todo = Self.todo(1)
    }
    store.advance(by: .seconds(30))
    store.finish()
    XCTAssertEqual(requested.value, [1])
  }

  func testANewerFetchReplacesOneInFlight() {
    let store = makeStore(latency: .seconds(1))
    store.send(.clickButton) { $0.isFetching = true }
    store.advance(by: .milliseconds(500))
    store.send(.clickButton)
    store.advance(by: .seconds(1))
    store.receive(.fetchResult(.success(Self.todo(2)))) {
      $0.isFetching = false
      $0.todo = Self.todo(2)
    }
    store.finish()
    XCTAssertEqual(requested.value, [1, 2])
  }

  func testAFailureReplacesTheTodoAndASuccessClearsIt() {
    let failure = RequestFailure(
      kind: .decoding, url: "http://127.0.0.1:1/todos/2",
      message: "the body is not a todo: missing field \"title\"")
    let store = makeStore(RandomTodoState(todo: Self.todo(7))) { id in
      if id == 1 { throw failure }
      return Self.todo(id)
    }
    store.send(.clickButton) { $0.isFetching = true }
    store.receive(.fetchResult(.failure(failure))) {
      $0.isFetching = false
      $0.todo = nil
      $0.failure = failure
    }
    XCTAssertEqual(store.state.titleText, failure.message)
    XCTAssertEqual(store.state.idText, "")
    store.send(.clickButton) { $0.isFetching = true }
    store.receive(.fetchResult(.success(Self.todo(2)))) {
      $0.isFetching = false
      $0.todo = Self.todo(2)
      $0.failure = nil
    }
    XCTAssertEqual(store.state.idText, "#2")
    XCTAssertEqual(store.state.titleText, "todo 2")
    store.finish()
  }
}

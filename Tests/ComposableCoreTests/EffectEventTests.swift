import ComposableCore
import ComposableTestSupport
import XCTest

/// Pins what ``Store/didChangeEffect`` tells of each effect's life: its number, the reduction
/// that started it, its operator and id, and how it ended.
final class EffectEventTests: XCTestCase {
  enum Action: Equatable, Sendable {
    case start
    case startAgain
    case stop
    case fail
    case nested
    case value(Int)
  }

  private enum Timer: Hashable, Sendable { case tick }

  struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
  }

  private func makeStore(clock: VirtualClock) -> TestStore<Int, Action> {
    let wait: Effect<Action> = .run { send in
      try await clock.sleep(for: .seconds(1))
      await send(.value(1))
    }
    return TestStore(
      initialState: 0,
      reducer: Reduce<Int, Action> { state, action in
        switch action {
        case .start: return wait.cancellable(id: Timer.tick)
        case .startAgain: return wait.cancellable(id: Timer.tick, cancelInFlight: true)
        case .stop: return .cancel(id: Timer.tick)
        case .fail: return .merge(.run { _ in throw Boom() }, wait)
        case .nested: return .concatenate(.run { _ in }, wait.cancellable(id: Timer.tick))
        case .value(let n):
          state += n
          return .none
        }
      },
      clock: clock)
  }

  private func event(
    _ effect: UInt64, _ kind: EffectEvent.Kind, cause: Int, _ operation: String,
    id: Bool = true
  ) -> EffectEvent {
    EffectEvent(
      effect: effect, kind: kind, cause: cause, operation: operation,
      cancelID: id ? EffectID(Timer.tick) : nil)
  }

  func testAnEffectStartsSleepsOnTheClockAndFinishesWithTheReductionThatReturnedIt() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock)
    store.send(.start)
    let started = try XCTUnwrap(store.effectEvents.first)
    XCTAssertEqual(
      store.effectEvents,
      [
        event(started.effect, .started, cause: 1, "run"),
        event(started.effect, .sleeping(until: .seconds(1)), cause: 1, "run"),
      ])
    store.advance(by: .seconds(1))
    store.receive(.value(1)) { $0 = 1 }
    XCTAssertEqual(
      store.effectEvents.last, event(started.effect, .finished, cause: 1, "run"))
    store.finish()
  }

  func testACancelSaysWhichReductionCancelled() throws {
    let store = makeStore(clock: VirtualClock())
    store.send(.start)
    store.send(.stop)
    let first = try XCTUnwrap(store.effectEvents.first).effect
    XCTAssertEqual(
      store.effectEvents,
      [
        event(first, .started, cause: 1, "run"),
        event(first, .sleeping(until: .seconds(1)), cause: 1, "run"),
        event(first, .cancelled(.cancelledByID(2)), cause: 1, "run"),
      ])
    store.finish()
  }

  func testANewerEffectReplacingOneInFlightSaysWhichReductionStartedIt() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock)
    store.send(.start)
    store.send(.startAgain)
    let first = try XCTUnwrap(store.effectEvents.first).effect
    XCTAssertEqual(
      store.effectEvents,
      [
        event(first, .started, cause: 1, "run"),
        event(first, .sleeping(until: .seconds(1)), cause: 1, "run"),
        event(first, .cancelled(.replaced(2)), cause: 1, "run"),
        event(first + 1, .started, cause: 2, "run"),
        event(first + 1, .sleeping(until: .seconds(1)), cause: 2, "run"),
      ])
    store.advance(by: .seconds(1))
    store.receive(.value(1)) { $0 = 1 }
    XCTAssertEqual(store.effectEvents.last, event(first + 1, .finished, cause: 2, "run"))
    store.finish()
  }

  /// Each part of a merge the reducer returns runs as an effect of its own: the one that threw
  /// fails, the other goes on.
  func testAFailingRunEndsItsEffectAsFailed() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock)
    var failures: [String] = []
    store.reportFailure = { message, _, _ in failures.append(message) }
    store.send(.fail)
    let first = try XCTUnwrap(store.effectEvents.first).effect
    XCTAssertEqual(
      store.effectEvents,
      [
        event(first, .started, cause: 1, "run", id: false),
        event(first + 1, .started, cause: 1, "run", id: false),
        event(first, .failed("boom"), cause: 1, "run", id: false),
        event(first + 1, .sleeping(until: .seconds(1)), cause: 1, "run", id: false),
      ])
    store.advance(by: .seconds(1))
    store.receive(.value(1)) { $0 = 1 }
    XCTAssertEqual(
      store.effectEvents.last, event(first + 1, .finished, cause: 1, "run", id: false))
    store.finish()
    XCTAssertEqual(failures, ["An effect failed without a catch handler: boom"])
  }

  /// A cancellable part started while an effect runs is an effect of its own, with the same
  /// cause; cancelling the enclosing effect cancels it too.
  func testAnEffectStartedInsideAnotherIsItsOwnAndEndsWithIt() throws {
    let store = makeStore(clock: VirtualClock())
    store.send(.nested)
    let outer = try XCTUnwrap(store.effectEvents.first).effect
    XCTAssertEqual(
      store.effectEvents,
      [
        event(outer, .started, cause: 1, "concatenate", id: false),
        event(outer + 1, .started, cause: 1, "run"),
        event(outer + 1, .sleeping(until: .seconds(1)), cause: 1, "run"),
      ])
    store.send(.stop)
    XCTAssertEqual(
      Array(store.effectEvents.dropFirst(3)),
      [
        event(outer + 1, .cancelled(.cancelledByID(2)), cause: 1, "run"),
        event(outer, .finished, cause: 1, "concatenate", id: false),
      ])
    store.finish()
  }

  func testAnEffectStillRunningAtTheEndIsNamedWithTheActionThatStartedIt() throws {
    var failures: [String] = []
    do {
      let store = makeStore(clock: VirtualClock())
      store.reportFailure = { message, _, _ in failures.append(message) }
      // The effect sleeps on the virtual clock: waiting in real time would not end it.
      store.timeout = .zero
      store.send(.start)
      store.finish()
    }
    XCTAssertEqual(failures.count, 1)
    let failure = try XCTUnwrap(failures.first)
    XCTAssertTrue(
      failure.hasSuffix(", cancellable by tick), started by start"), failure)
    XCTAssertTrue(failure.contains("1 effect(s) still running at the end of the test"), failure)
  }
}

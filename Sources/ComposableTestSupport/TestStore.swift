import ComposableCore
import CustomDump
import XCTest

/// TCA's `TestStore` for this core: every state change and every action an effect sends must
/// be asserted, and no effect may still be running when the test ends. An issue a reducer
/// reports (such as `forEach` given an action for a missing element) fails the step that
/// caused it.
///
/// ```swift
/// let clock = VirtualClock()
/// let store = TestStore(initialState: CounterState(), reducer: Counter(clock: clock), clock: clock)
/// store.send(.startTimer) { $0.isTimerRunning = true }
/// store.advance(by: .seconds(1))
/// store.receive(.timerTicked) { $0.count = 1 }
/// store.send(.stopTimer) { $0.isTimerRunning = false }
/// store.finish()
/// ```
/// It installs a ``ManualExecutor`` as the store actor's executor and drains it after every
/// step, so a test reads top to bottom like the timeline it checks.
public final class TestStore<State: Equatable & Sendable, Action: Equatable & Sendable> {
  public let executor = ManualExecutor()
  public let clock: VirtualClock?
  /// The state the assertions so far describe.
  public private(set) var state: State
  private let store: Store<State, Action>
  private let recorder: Recorder
  private var isFinished = false
  /// Where failed assertions go: `XCTFail` unless a test of the test store itself collects them.
  public var reportFailure: (String, StaticString, UInt) -> Void = { message, file, line in
    XCTFail(message, file: file, line: line)
  }

  public init<R: Reducer>(
    initialState: State, reducer: sending R, clock: VirtualClock? = nil
  ) where R.State == State, R.Action == Action {
    StoreActor.install(executor: executor)
    self.clock = clock
    self.state = initialState
    let recorder = StoreActor.assumeIsolated { Recorder() }
    self.recorder = recorder
    let store = StoreActor.assumeIsolated {
      let store = Store(initialState: initialState, reducer: reducer)
      store.didReduce = { reduced, state in
        recorder.reductions.append((reduced.action, reduced.source, state))
        recorder.reducedActions.append("\(reduced.action)")
        return recorder.reducedActions.count
      }
      store.didChangeEffect = { event in recorder.record(event) }
      store.didFailEffect = { error, _ in recorder.failures.append("\(error)") }
      store.didReportIssue = { issue, reduced in
        recorder.issues.append("\(reduced.action) reported an issue: \(issue.message)")
      }
      return store
    }
    self.store = store
  }

  deinit {
    if !isFinished { checkCompletion(file: #filePath, line: #line) }
  }

  /// Sends a host action and asserts the state it produced: `update` turns the previously
  /// asserted state into the expected one.
  public func send(
    _ action: Action, file: StaticString = #filePath, line: UInt = #line,
    assert update: ((inout State) -> Void)? = nil
  ) {
    let unhandled = takeReductions().filter { $0.source == .effect }
    if !unhandled.isEmpty {
      fail(
        "Must handle \(unhandled.count) received action(s) before sending \(action): "
          + unhandled.map { "\($0.action)" }.joined(separator: ", "), file: file, line: line)
    }
    StoreActor.assumeIsolated { [store] in store.send(action) }
    // The first reduction is the action itself; any after it were sent by `.send` effects and
    // wait for `receive`.
    guard let reduced = takeNext() else {
      fail("The store did not reduce \(action)", file: file, line: line)
      return
    }
    expect(reduced.state, after: "sending \(action)", update: update, file: file, line: line)
    executor.runUntilIdle()
    failIssues(file: file, line: line)
  }

  /// Asserts that the next action an effect sent is `expected`, and the state it produced.
  public func receive(
    _ expected: Action, file: StaticString = #filePath, line: UInt = #line,
    assert update: ((inout State) -> Void)? = nil
  ) {
    executor.runUntilIdle()
    guard let reduced = takeNext() else {
      fail("Expected to receive \(expected), but no action was received", file: file, line: line)
      return
    }
    if reduced.action != expected {
      fail(
        "Received unexpected action: …\n\n" + Self.difference(expected, reduced.action)
          + "\n\n(Expected: −, Received: +)", file: file, line: line)
    }
    expect(reduced.state, after: "receiving \(expected)", update: update, file: file, line: line)
    failIssues(file: file, line: line)
  }

  /// Moves the virtual clock forward, letting every effect settle after each deadline.
  public func advance(by duration: Duration, file: StaticString = #filePath, line: UInt = #line) {
    guard let clock else {
      fail("advance(by:) needs the VirtualClock passed to TestStore.init", file: file, line: line)
      return
    }
    executor.runUntilIdle()
    clock.advance(by: duration) { executor.runUntilIdle() }
    failIssues(file: file, line: line)
  }

  /// Asserts that every received action was handled and no effect is still running.
  public func finish(file: StaticString = #filePath, line: UInt = #line) {
    isFinished = true
    checkCompletion(file: file, line: line)
  }

  /// Every effect's start and end so far, in order, after letting ready work run. An event's
  /// `cause` counts the reduced actions from 1.
  public var effectEvents: [EffectEvent] {
    executor.runUntilIdle()
    return StoreActor.assumeIsolated { [recorder] in recorder.effectEvents }
  }

  /// How many effects are still running, after letting ready work run.
  public var effectsInFlight: Int {
    executor.runUntilIdle()
    return StoreActor.assumeIsolated { [store] in store.effectsInFlight }
  }

  private func checkCompletion(file: StaticString, line: UInt) {
    executor.runUntilIdle()
    let unhandled = takeReductions().filter { $0.source == .effect }
    if !unhandled.isEmpty {
      fail(
        "The store received \(unhandled.count) unexpected action(s): "
          + unhandled.map { "\($0.action)" }.joined(separator: ", "), file: file, line: line)
    }
    let running = StoreActor.assumeIsolated { [store] in store.effectsInFlight }
    if running > 0 {
      let named = StoreActor.assumeIsolated { [recorder] in recorder.runningEffects }
      fail(
        "\(running) effect(s) still running at the end of the test; cancel them or assert their "
          + "actions:" + named.map { "\n  \($0)" }.joined(), file: file, line: line)
      StoreActor.assumeIsolated { [store] in store.cancelAllEffects(because: "the end of the test")
      }
      executor.runUntilIdle()
    }
    let failures = StoreActor.assumeIsolated { [recorder] in recorder.takeFailures() }
    for failure in failures {
      fail("An effect failed without a catch handler: \(failure)", file: file, line: line)
    }
    failIssues(file: file, line: line)
  }

  /// Fails for each issue reduced actions reported since the last step.
  private func failIssues(file: StaticString, line: UInt) {
    let issues = StoreActor.assumeIsolated { [recorder] in recorder.takeIssues() }
    for issue in issues { fail(issue, file: file, line: line) }
  }

  private func expect(
    _ actual: State, after step: String, update: ((inout State) -> Void)?,
    file: StaticString, line: UInt
  ) {
    var expected = state
    update?(&expected)
    if expected != actual {
      fail(
        "A state change after \(step) does not match expectation: …\n\n"
          + Self.difference(expected, actual) + "\n\n(Expected: −, Actual: +)",
        file: file, line: line)
    }
    state = actual
  }

  /// The dumps of two unequal values with the lines that differ marked, as TCA prints them.
  private static func difference<T>(_ expected: T, _ actual: T) -> String {
    let text = diff(expected, actual, format: .proportional) ?? "(they differ but dump the same)"
    return text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { "    " + $0 }.joined(separator: "\n")
  }

  private func fail(_ message: String, file: StaticString, line: UInt) {
    reportFailure(message, file, line)
  }

  private func takeReductions() -> [Recorder.Reduction] {
    StoreActor.assumeIsolated { [recorder] in recorder.takeAll() }
  }

  private func takeNext() -> Recorder.Reduction? {
    StoreActor.assumeIsolated { [recorder] in recorder.takeFirst() }
  }

  @StoreActor
  private final class Recorder {
    typealias Reduction = (action: Action, source: ActionSource, state: State)
    var reductions: [Reduction] = []
    var failures: [String] = []
    /// What reducers reported, each with the action that reported it, until a step fails for it.
    var issues: [String] = []
    /// Every action reduced, by its number less one.
    var reducedActions: [String] = []
    var effectEvents: [EffectEvent] = []
    /// The effects started and not ended, by number.
    private var running: [UInt64: EffectEvent] = [:]

    func record(_ event: EffectEvent) {
      effectEvents.append(event)
      switch event.kind {
      case .started: running[event.effect] = event
      case .sleeping: break
      case .finished, .failed, .cancelled: running[event.effect] = nil
      }
    }

    /// Each running effect, and the action whose reduction started it.
    var runningEffects: [String] {
      running.keys.sorted().map { number in
        let event = running[number]!
        return EffectEvent.runningDescription(
          effect: String(number), operation: event.operation,
          cancelID: event.cancelID?.description,
          startedBy: event.cause.map { reducedActions[$0 - 1] } ?? "?")
      }
    }

    func takeAll() -> [Reduction] {
      defer { reductions.removeAll() }
      return reductions
    }

    func takeFirst() -> Reduction? {
      reductions.isEmpty ? nil : reductions.removeFirst()
    }

    func takeFailures() -> [String] {
      defer { failures.removeAll() }
      return failures
    }

    func takeIssues() -> [String] {
      defer { issues.removeAll() }
      return issues
    }
  }
}

import ComposableCore
import CustomDump
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// TCA's `TestStore` for this core: every state change and every action an effect sends must
/// be asserted, and no effect may still be running when the test ends, unless the test says
/// otherwise (``exhaustivity``, ``skipReceivedActions(strict:file:line:)``,
/// ``skipInFlightEffects(strict:file:line:)``). An issue a reducer reports (such as `forEach`
/// given an action for a missing element) fails the step that caused it.
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
/// It installs a ``/ComposableCore/ManualExecutor`` as the store actor's executor and drains it
/// after every step, so a test reads top to bottom like the timeline it checks.
public final class TestStore<State: Equatable & Sendable, Action: Sendable> {
  /// The executor the store runs on, which each step drains.
  public let executor = ManualExecutor()
  /// The clock ``advance(by:file:line:)`` moves: the one the store's dependencies sleep on.
  public let clock: VirtualClock?
  /// The state the assertions so far describe, with the received actions skipped since.
  public internal(set) var state: State
  /// How much of what the store does the test must assert; `.on` unless set.
  public var exhaustivity: Exhaustivity = .on
  /// How long, in real time, `receive` waits for an action and `finish` for the effects to
  /// end, while effects run. Work on the store's executor and the
  /// ``/ComposableCore/VirtualClock`` needs none (each step runs all of it, and the clock moves
  /// only with ``advance(by:file:line:)``): the wait is for effects whose work is done
  /// elsewhere, on another thread or a real clock.
  public var timeout: Duration = .seconds(1)
  /// Where failed assertions go: `XCTFail` unless a test of the test store itself collects them.
  public var reportFailure: (String, StaticString, UInt) -> Void = { message, file, line in
    XCTFail(message, file: file, line: line)
  }
  /// Where a non-exhaustive test's skipped assertions go under
  /// `.off(showSkippedAssertions: true)`, and what ``skipReceivedActions(strict:file:line:)``
  /// and ``skipInFlightEffects(strict:file:line:)`` skip in an exhaustive one. TCA reports them
  /// as expected failures; XCTest on Linux has none, so they are written to stderr as notes.
  public var reportSkippedAssertion: (String, StaticString, UInt) -> Void = { message, file, line in
    let note = Array("\(file):\(line): note: skipped assertion: \(message)\n".utf8)
    _ = note.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
  let store: Store<State, Action>
  let recorder: Recorder
  private var isFinished = false
  /// The effects ``skipInFlightEffects(strict:file:line:)`` let run past the end, by number.
  private var skippedEffects: Set<UInt64> = []

  /// A test store for `reducer` in `initialState`. Pass `clock`, the clock the reducer's
  /// dependencies sleep on, to move time with ``advance(by:file:line:)``.
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

  /// A store whose reducer is built from the dependencies this test chooses: `dependencies`,
  /// the values a feature's tests share (closures that fail when called, as TCA's test
  /// dependencies do), changed by `withDependencies` where this test needs other answers.
  ///
  /// ```swift
  /// let store = TestStore(initialState: TodoListState(), dependencies: .failing(clock)) {
  ///   TodoListReducer(dependencies: $0)
  /// } withDependencies: {
  ///   $0.load = { [Todo(id: 1, title: "Milk")] }
  /// }
  /// ```
  /// The reducer is built once, from the changed dependencies. For an answer that changes
  /// between steps, let the closure read a ``LockedBox`` the test sets.
  public convenience init<R: Reducer, Dependencies>(
    initialState: State, dependencies: Dependencies, clock: VirtualClock? = nil,
    reducer: (Dependencies) -> sending R,
    withDependencies prepare: (inout Dependencies) -> Void = { _ in }
  ) where R.State == State, R.Action == Action {
    var dependencies = dependencies
    prepare(&dependencies)
    self.init(initialState: initialState, reducer: reducer(dependencies), clock: clock)
  }

  deinit {
    if !isFinished { checkCompletion(timeout: timeout, file: #filePath, line: #line) }
  }

  /// Sends a host action and asserts the state it produced: `update` turns the state before
  /// it into the expected one (in a non-exhaustive test, the state after it: see
  /// ``Exhaustivity``). Received actions not asserted yet fail the step, or are skipped in a
  /// non-exhaustive test.
  public func send(
    _ action: Action, file: StaticString = #filePath, line: UInt = #line,
    assert update: ((inout State) -> Void)? = nil
  ) {
    let unhandled = takeReceived()
    if let last = unhandled.last {
      report(
        exhaustivity == .on
          ? "Must handle \(unhandled.count) received action(s) before sending \(action): "
            + Self.list(unhandled)
          : "\(unhandled.count) received action(s) skipped: " + Self.list(unhandled),
        file: file, line: line)
      // What they changed is taken as asserted, so the step is judged on its own change.
      state = last.state
    }
    StoreActor.assumeIsolated { [store] in store.send(action) }
    // The first reduction is the action itself; any after it were sent by `.send` effects and
    // wait for `receive`.
    guard let reduced = takeNext() else {
      fail("The store did not reduce \(action)", file: file, line: line)
      return
    }
    expect(reduced.state, "after sending \(action)", update: update, file: file, line: line)
    executor.runUntilIdle()
    failIssues(file: file, line: line)
  }

  /// Asserts the state as it is now, as TCA's `assert`: in a non-exhaustive test, what
  /// `update` sets (after ``skipReceivedActions(strict:file:line:)``, say); in an exhaustive
  /// one, that `update` changes nothing.
  ///
  /// ```swift
  /// store.exhaustivity = .off
  /// store.send(.login)
  /// store.skipReceivedActions()
  /// store.assert { $0.isLoggedIn = true }
  /// ```
  public func assert(
    file: StaticString = #filePath, line: UInt = #line, _ update: (inout State) -> Void
  ) {
    withoutActuallyEscaping(update) { update in
      expect(state, "in assert", update: update, expectsChange: false, file: file, line: line)
    }
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

  /// Asserts that every received action was handled and no effect is still running (after
  /// waiting up to `timeout`, ``timeout`` if nil, for effects working off the executor to
  /// end); in a non-exhaustive test, only that no effect failed and no reducer reported an
  /// issue. Effects still running are then cancelled. A test store that is not finished
  /// finishes when it is released.
  public func finish(
    timeout: Duration? = nil, file: StaticString = #filePath, line: UInt = #line
  ) {
    isFinished = true
    checkCompletion(timeout: timeout ?? self.timeout, file: file, line: line)
  }

  /// Drops the received actions not asserted yet, taking the state they made as asserted.
  /// With `strict`, that there are none is a failure. In an exhaustive test what it skips is
  /// reported as a skipped assertion, not a failure.
  public func skipReceivedActions(
    strict: Bool = true, file: StaticString = #filePath, line: UInt = #line
  ) {
    executor.runUntilIdle()
    let skipped = takeReceived()
    guard let last = skipped.last else {
      if strict { fail("There were no received actions to skip", file: file, line: line) }
      return
    }
    state = last.state
    reportSkipped(
      "\(skipped.count) received action(s) skipped: " + Self.list(skipped), file: file,
      line: line)
  }

  /// Lets the effects running now run past the end of the test, where they are cancelled
  /// instead of failing it. They go on running until then, and the actions they send must
  /// still be received (or skipped). With `strict`, that none is running is a failure.
  public func skipInFlightEffects(
    strict: Bool = true, file: StaticString = #filePath, line: UInt = #line
  ) {
    executor.runUntilIdle()
    let running = runningEffects()
    guard !running.isEmpty else {
      if strict { fail("There were no in-flight effects to skip", file: file, line: line) }
      return
    }
    skippedEffects.formUnion(running.map(\.number))
    reportSkipped(
      "\(running.count) in-flight effect(s) skipped:"
        + running.map { "\n  \($0.description)" }.joined(), file: file, line: line)
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

  private func checkCompletion(timeout: Duration, file: StaticString, line: UInt) {
    if exhaustivity == .on {
      waitForEffects(timeout: timeout) { runningEffects().isEmpty }
    } else {
      executor.runUntilIdle()
    }
    let unhandled = takeReceived()
    if !unhandled.isEmpty {
      report(
        "The store received \(unhandled.count) unexpected action(s): " + Self.list(unhandled)
          + "; assert them with receive, skip them with skipReceivedActions(), or make the "
          + "test non-exhaustive", file: file, line: line)
    }
    let running = runningEffects()
    if !running.isEmpty {
      report(
        "\(running.count) effect(s) still running at the end of the test; cancel them, "
          + "assert their actions, or skip them with skipInFlightEffects():"
          + running.map { "\n  \($0.description)" }.joined(), file: file, line: line)
    }
    if StoreActor.assumeIsolated({ [store] in store.effectsInFlight }) > 0 {
      StoreActor.assumeIsolated { [store] in
        _ = store.cancelAllEffects(because: "the end of the test")
      }
      executor.runUntilIdle()
    }
    let failures = StoreActor.assumeIsolated { [recorder] in recorder.takeFailures() }
    for failure in failures {
      fail("An effect failed without a catch handler: \(failure)", file: file, line: line)
    }
    failIssues(file: file, line: line)
  }

  /// Runs the executor until `isDone`, no effect is running, or `timeout` (real time) has
  /// passed: what effects wait for off the executor (a thread, a real clock) comes back to it
  /// as jobs.
  func waitForEffects(timeout: Duration, until isDone: () -> Bool) {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
      executor.runUntilIdle()
      if isDone() || StoreActor.assumeIsolated({ [store] in store.effectsInFlight }) == 0
        || clock.now >= deadline
      {
        return
      }
      while !executor.hasPendingJobs && clock.now < deadline { usleep(100) }
    }
  }

  /// The running effects, but those skipped, each with the action whose reduction started it.
  private func runningEffects() -> [(number: UInt64, description: String)] {
    StoreActor.assumeIsolated { [recorder] in recorder.runningEffects }.filter {
      !skippedEffects.contains($0.number)
    }
  }

  /// Fails for each issue reduced actions reported since the last step.
  func failIssues(file: StaticString, line: UInt) {
    let issues = StoreActor.assumeIsolated { [recorder] in recorder.takeIssues() }
    for issue in issues { fail(issue, file: file, line: line) }
  }

  /// Checks the state a step left against the test's expectation, as TCA does in each mode,
  /// and takes it as asserted. `step` names the step in the messages.
  func expect(
    _ actual: State, _ step: String, update: ((inout State) -> Void)?,
    expectsChange: Bool = true, file: StaticString, line: UInt
  ) {
    let previous = state
    defer { state = actual }
    var expected = exhaustivity == .on ? previous : actual
    update?(&expected)
    if expected != actual {
      fail(mismatch(expected, actual, step, hasUpdate: update != nil), file: file, line: line)
      return
    }
    if exhaustivity == .off(showSkippedAssertions: true) {
      // What an exhaustive test would have said, shown as skipped.
      var exhaustive = previous
      update?(&exhaustive)
      if exhaustive != actual {
        reportSkippedAssertion(
          mismatch(exhaustive, actual, step, hasUpdate: update != nil), file, line)
        return
      }
    }
    if expectsChange && update != nil && expected == previous {
      report(
        "Expected state to change \(step), but no change occurred: the closure made no "
          + "observable modification; if no change is expected, omit the closure", file: file,
        line: line)
    }
  }

  private func mismatch(_ expected: State, _ actual: State, _ step: String, hasUpdate: Bool)
    -> String
  {
    (hasUpdate
      ? "A state change \(step) does not match expectation: …\n\n"
      : "State was not expected to change \(step), but a change occurred: …\n\n")
      + Self.difference(expected, actual) + "\n\n(Expected: −, Actual: +)"
  }

  /// The dumps of two unequal values with the lines that differ marked, as TCA prints them.
  static func difference<T>(_ expected: T, _ actual: T) -> String {
    let text = diff(expected, actual, format: .proportional) ?? "(they differ but dump the same)"
    return indented(text)
  }

  static func indented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { "    " + $0 }.joined(separator: "\n")
  }

  /// Received actions, as a failure lists them.
  static func list(_ reductions: [Recorder.Reduction]) -> String {
    reductions.map { "\($0.action)" }.joined(separator: ", ")
  }

  func fail(_ message: String, file: StaticString, line: UInt) {
    reportFailure(message, file, line)
  }

  /// What an exhaustive test fails on: a failure, a skipped assertion, or nothing, as
  /// ``exhaustivity`` says.
  func report(_ message: String, file: StaticString, line: UInt) {
    switch exhaustivity {
    case .on: reportFailure(message, file, line)
    case .off(showSkippedAssertions: true): reportSkippedAssertion(message, file, line)
    case .off(showSkippedAssertions: false): break
    }
  }

  /// What a test chose to skip: shown unless it is non-exhaustive and silent.
  private func reportSkipped(_ message: String, file: StaticString, line: UInt) {
    if exhaustivity != .off(showSkippedAssertions: false) {
      reportSkippedAssertion(message, file, line)
    }
  }

  /// The received actions not asserted yet, taken.
  func takeReceived() -> [Recorder.Reduction] {
    StoreActor.assumeIsolated { [recorder] in recorder.takeAll() }
  }

  func takeNext() -> Recorder.Reduction? {
    StoreActor.assumeIsolated { [recorder] in recorder.takeFirst() }
  }

  @StoreActor
  final class Recorder {
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
    var runningEffects: [(number: UInt64, description: String)] {
      running.keys.sorted().map { number in
        let event = running[number]!
        return (
          number,
          EffectEvent.runningDescription(
            effect: String(number), operation: event.operation,
            cancelID: event.cancelID?.description,
            startedBy: event.cause.map { reducedActions[$0 - 1] } ?? "?")
        )
      }
    }

    func takeAll() -> [Reduction] {
      defer { reductions.removeAll() }
      return reductions
    }

    func takeFirst() -> Reduction? {
      reductions.isEmpty ? nil : reductions.removeFirst()
    }

    /// Drops the first `count` reductions and returns the last of them.
    func drop(_ count: Int) -> Reduction? {
      defer { reductions.removeFirst(count) }
      return count == 0 ? nil : reductions[count - 1]
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

import ComposableCore
import CustomDump

/// `receive`: the next action an effect sent, named whole, by its case, or by a predicate.
///
/// Each waits up to `timeout` (``TestStore/timeout`` if nil, real time) while effects run, for
/// an action from work done off the store's executor; then, in an exhaustive test, the next
/// received action must match, and in a non-exhaustive one the first that matches is taken and
/// those before it are skipped. `update` asserts the state it left, as `send`'s does.
extension TestStore where Action: Equatable {
  /// Asserts that the next action an effect sent is `expected`, and the state it produced.
  public func receive(
    _ expected: Action, timeout: Duration? = nil, file: StaticString = #filePath,
    line: UInt = #line, assert update: ((inout State) -> Void)? = nil
  ) {
    receive(
      "\(expected)", timeout: timeout, file: file, line: line, update: update,
      matches: { $0 == expected },
      mismatch: { Self.difference(expected, $0) + "\n\n(Expected: −, Received: +)" })
  }
}

extension TestStore {
  /// Asserts that the next action an effect sent is of the case `actionCase` names, whatever
  /// its payload: `\.loaded`, or `\.todos?.element` down a child action. An action enum offers
  /// such a path to each case as an optional property (what swift-case-paths' `@CasePathable`
  /// derives), and the action needs not be `Equatable`.
  ///
  /// ```swift
  /// extension SearchAction {
  ///   var response: [Result]? { if case .response(let value) = self { value } else { nil } }
  /// }
  /// store.receive(\.response) { $0.isSearching = false }
  /// ```
  public func receive<Value>(
    _ actionCase: KeyPath<Action, Value?>, timeout: Duration? = nil,
    file: StaticString = #filePath, line: UInt = #line,
    assert update: ((inout State) -> Void)? = nil
  ) {
    receive(
      Self.matching(Value.self), timeout: timeout, file: file, line: line, update: update,
      matches: { $0[keyPath: actionCase] != nil }, mismatch: Self.dump)
  }

  /// Asserts that the next action an effect sent is of the case `actionCase` names, with the
  /// payload `value`.
  ///
  /// ```swift
  /// store.receive(\.delegate?.saved, 42)
  /// ```
  public func receive<Value: Equatable>(
    _ actionCase: KeyPath<Action, Value?>, _ value: Value, timeout: Duration? = nil,
    file: StaticString = #filePath, line: UInt = #line,
    assert update: ((inout State) -> Void)? = nil
  ) {
    receive(
      Self.matching(Value.self) + " with \(value)", timeout: timeout, file: file, line: line,
      update: update, matches: { $0[keyPath: actionCase] == value },
      mismatch: { received in
        guard let payload = received[keyPath: actionCase] else { return Self.dump(received) }
        return Self.dump(received) + "\n\nIts payload:\n\n" + Self.difference(value, payload)
          + "\n\n(Expected: −, Received: +)"
      })
  }

  /// Asserts that the next action an effect sent is of the case `actionCase` names, with the
  /// core's ``/ComposableCore/CasePath`` (the one `Scope` and `forEach` take):
  /// `TodoListAction.Cases.todos`.
  public func receive<Value>(
    _ actionCase: CasePath<Action, Value>, timeout: Duration? = nil,
    file: StaticString = #filePath, line: UInt = #line,
    assert update: ((inout State) -> Void)? = nil
  ) {
    receive(
      Self.matching(Value.self), timeout: timeout, file: file, line: line, update: update,
      matches: { actionCase.extract($0) != nil }, mismatch: Self.dump)
  }

  /// Asserts that the next action an effect sent is `actionCase.embed(value)`, for an action
  /// that is not `Equatable` itself; a wrong payload shows as the difference of the two
  /// actions.
  public func receive<Value: Equatable>(
    _ actionCase: CasePath<Action, Value>, _ value: Value, timeout: Duration? = nil,
    file: StaticString = #filePath, line: UInt = #line,
    assert update: ((inout State) -> Void)? = nil
  ) {
    let expected = actionCase.embed(value)
    receive(
      "\(expected)", timeout: timeout, file: file, line: line, update: update,
      matches: { actionCase.extract($0) == value },
      mismatch: { received in
        actionCase.extract(received) == nil
          ? Self.dump(received)
          : Self.difference(expected, received) + "\n\n(Expected: −, Received: +)"
      })
  }

  /// Asserts that the next action an effect sent is one `isMatching` accepts.
  ///
  /// ```swift
  /// store.receive { if case .response = $0 { true } else { false } }
  /// ```
  @_disfavoredOverload
  public func receive(
    _ isMatching: (Action) -> Bool, timeout: Duration? = nil, file: StaticString = #filePath,
    line: UInt = #line, assert update: ((inout State) -> Void)? = nil
  ) {
    receive(
      "an action matching the predicate", timeout: timeout, file: file, line: line,
      update: update, matches: isMatching, mismatch: Self.dump)
  }

  /// The one `receive`: `expected` names what is expected in the messages, `matches` accepts
  /// it, and `mismatch` shows how a received action that does not match differs.
  private func receive(
    _ expected: String, timeout: Duration?, file: StaticString, line: UInt,
    update: ((inout State) -> Void)?, matches: (Action) -> Bool,
    mismatch: (Action) -> String
  ) {
    let timeout = timeout ?? self.timeout
    let exhaustive = exhaustivity == .on
    waitForEffects(timeout: timeout) {
      let received = StoreActor.assumeIsolated { [recorder] in recorder.reductions }
      return exhaustive ? !received.isEmpty : received.contains { matches($0.action) }
    }
    let received = StoreActor.assumeIsolated { [recorder] in recorder.reductions }
    guard exhaustive ? !received.isEmpty : received.contains(where: { matches($0.action) })
    else {
      fail(
        "Expected to receive \(expected), but "
          + (received.isEmpty
            ? "no action was received" : "none of the \(received.count) received matched")
          + waitedFor(timeout), file: file, line: line)
      return
    }
    if !exhaustive, let index = received.firstIndex(where: { matches($0.action) }), index > 0 {
      let skipped = Array(received[..<index])
      _ = StoreActor.assumeIsolated { [recorder] in recorder.drop(index) }
      state = skipped.last!.state
      report(
        "\(index) received action(s) skipped: " + Self.list(skipped), file: file, line: line)
    }
    let next = takeNext()!
    guard matches(next.action) else {
      let later = received.dropFirst().contains { matches($0.action) }
      fail(
        "Received unexpected action\(later ? " before this one" : ""): …\n\n"
          + mismatch(next.action), file: file, line: line)
      state = next.state
      return
    }
    expect(next.state, "after receiving \(next.action)", update: update, file: file, line: line)
    failIssues(file: file, line: line)
  }

  /// Why nothing came: nothing could send it, or nothing did in time.
  private func waitedFor(_ timeout: Duration) -> String {
    let running = StoreActor.assumeIsolated { [store] in store.effectsInFlight }
    guard running > 0 else { return "; no effect is running that could send it" }
    return " after \(timeout), with \(running) effect(s) running: one waiting on the "
      + "VirtualClock needs advance(by:), and one working off the store's executor may need a "
      + "longer timeout"
  }

  /// How a message names an action expected by its case. A key path to a computed property
  /// does not print its name (only an address), so the payload's type stands for it.
  private static func matching<Value>(_: Value.Type) -> String {
    Value.self == Void.self
      ? "an action matching the case path to a case without payload"
      : "an action matching the case path to \(Value.self)"
  }

  private static func dump(_ action: Action) -> String {
    var text = ""
    customDump(action, to: &text)
    return indented(text)
  }
}

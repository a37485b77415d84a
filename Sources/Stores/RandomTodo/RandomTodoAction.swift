import ComposableDependencies

/// The random todo screen's actions; on the wire `viewDidAppear`, `fetchResult.success`, …
@ComposableAction
public enum RandomTodoAction: Equatable {
  /// Starts the automatic refresh: a fetch every 3 s, the first 3 s from now. Starting it
  /// again while it runs does nothing.
  case viewDidAppear
  /// Stops the automatic refresh, then fetches once; a newer fetch replaces one in flight.
  case clickButton
  /// Stops the automatic refresh. A fetch already in flight still completes and is shown.
  case stopRandomText
  /// The automatic refresh's timer fired: fetches once.
  @SentByEffect
  case timerTicked
  @SentByEffect
  case fetchResult(FetchResult)
}

/// The outcome of one fetch.
@ComposableAction
public enum FetchResult: Equatable {
  /// The todo that was fetched.
  case success(Todo)
  /// The fetch failed: no connection, a timeout, TLS, an HTTP status, or a body that is not
  /// a todo.
  case failure(RequestFailure)
}

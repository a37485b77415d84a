import ComposableDependencies

/// The random todo screen's actions; on the wire `viewDidAppear`, `fetchResult.success`, …
public enum RandomTodoAction: ComposableAction, Equatable {
  /// Starts the automatic refresh: a fetch every `refreshInterval` (3 s), the first one
  /// `refreshInterval` after appearing.
  case viewDidAppear
  /// Stops the automatic refresh, then fetches once.
  case clickButton
  /// Stops the automatic refresh; a fetch already in flight still completes and is shown.
  case stopRandomText
  /// The automatic refresh's timer fired.
  case timerTicked
  case fetchResult(FetchResult)
}

/// The outcome of one fetch.
public enum FetchResult: ComposableAction, Equatable {
  case success(Todo)
  case failure(RequestFailure)
}

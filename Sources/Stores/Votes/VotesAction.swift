import ComposableDependencies

/// The votes screen's actions, named as in the original; on the wire `onAppear`,
/// `task.willRun`, `inner.updateVoteItems.success`, `isLoading`, …
public enum VotesAction: ComposableAction, Equatable {
  /// Loads the three lists in parallel, the first time only.
  case onAppear
  /// Loads the page after the last one, while there is one and none is loading.
  case loadNextPage
  /// Cancels what is loading and loads all three lists again.
  case refresh
  /// Shows only the votes of one category (`null`: all), from the first page.
  case categorySelected(String?)
  case getInitialVoteItems
  case getPopularVoteItems
  case getVoteHeaderSectionItems
  case task(TaskAction)
  case inner(InnerAction)
  case isLoading(Bool)
}

/// Sent around every loading effect, so the screen counts what is still running.
public enum TaskAction: ComposableAction, Equatable {
  case willRun
  case didFinish
}

/// The loading effects' results.
public enum InnerAction: ComposableAction, Equatable {
  case updateVoteItems(Loaded<VotePage>)
  case updatePopularItems(Loaded<[Vote]>)
  case updateVoteHeaderCategory(Loaded<[VoteCategory]>)
}

/// What a load produced: the value, or why there is none.
public enum Loaded<Value: Equatable & Codable & Sendable>: ComposableAction, Equatable {
  case success(Value)
  case failure(RequestFailure)
}

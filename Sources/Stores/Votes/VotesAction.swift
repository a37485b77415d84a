import ComposableDependencies

/// The votes screen's actions, named as in the original; on the wire `onAppear`,
/// `task.willRun`, `inner.updateVoteItems.success`, `isLoading`, …
@ComposableAction
public enum VotesAction: Equatable {
  /// Loads the three lists in parallel; only the first time.
  case onAppear
  /// Loads the next page of votes while there is one; never the same page twice at once.
  case loadNextPage
  /// Cancels what is loading and loads all three lists again.
  case refresh
  /// Shows only one category's votes (null: all), from the first page.
  case categorySelected(String?)
  /// Loads the first page of votes.
  @SentByEffect
  case getInitialVoteItems
  /// Loads the popular votes.
  @SentByEffect
  case getPopularVoteItems
  /// Loads the header's categories.
  @SentByEffect
  case getVoteHeaderSectionItems
  @SentByEffect
  case task(TaskAction)
  @SentByEffect
  case inner(InnerAction)
  /// Shows or hides the loading indicator; at most one change per 0.2 s (the latest wins).
  @SentByEffect
  case isLoading(Bool)
}

/// Sent around every loading effect, so the screen counts what is still running.
@ComposableAction
public enum TaskAction: Equatable {
  /// A load started.
  case willRun
  /// A load finished, whether it succeeded or failed.
  case didFinish
}

/// The loading effects' results.
@ComposableAction
public enum InnerAction: Equatable {
  /// A page of votes: page 1 replaces the list, later pages append.
  case updateVoteItems(Loaded<VotePage>)
  /// The popular votes.
  case updatePopularItems(Loaded<[Vote]>)
  /// The categories.
  case updateVoteHeaderCategory(Loaded<[VoteCategory]>)
}

/// What a load produced: the value, or why there is none.
@ComposableAction
public enum Loaded<Value: Equatable & Codable & Sendable>: Equatable {
  /// It loaded.
  case success(Value)
  /// Loading it failed.
  case failure(RequestFailure)
}

import ComposableDependencies

public struct VotesState: Equatable, Codable, Sendable {
  public var hasAppeared = false
  /// On while any load runs; turned off when the last one finished (throttled, so a quick
  /// load does not flicker).
  public var isLoading = false
  /// Loads started and not finished yet.
  public var runningTasks = 0
  public var categories: [VoteCategory] = []
  public var popularItems: [Vote] = []
  /// The votes of the pages loaded, in order; a vote a later page repeats is kept once.
  public var voteItems: IdentifiedArrayOf<Vote> = []
  /// The category the votes are filtered by; `nil` shows all.
  public var selectedCategory: String?
  /// The last page of votes loaded; 0 before the first.
  public var page = 0
  public var hasNext = false
  /// The page being loaded, so a second `loadNextPage` does not load it twice.
  public var pageInFlight: Int?
  public var errors = VotesErrors()

  public init() {}
}

/// The last failure of each list, cleared when the list loads again.
public struct VotesErrors: Equatable, Codable, Sendable {
  public var categories: RequestFailure?
  public var popular: RequestFailure?
  public var votes: RequestFailure?

  public init(
    categories: RequestFailure? = nil, popular: RequestFailure? = nil, votes: RequestFailure? = nil
  ) {
    self.categories = categories
    self.popular = popular
    self.votes = votes
  }
}

import ComposableDependencies

/// The votes API, as the screen uses it. Each call throws a ``RequestFailure``.
public struct VotesDependencies: Sendable {
  public var fetchCategories: @Sendable () async throws -> [VoteCategory]
  public var fetchPopular: @Sendable () async throws -> [Vote]
  public var fetchVotes:
    @Sendable (_ page: Int, _ size: Int, _ category: String?) async throws -> VotePage
  public var clock: any Clock<Duration>
  public var pageSize: Int
  /// At most one change of `isLoading` per this interval.
  public var loadingThrottle: Duration

  public init(
    fetchCategories: @escaping @Sendable () async throws -> [VoteCategory],
    fetchPopular: @escaping @Sendable () async throws -> [Vote],
    fetchVotes:
      @escaping @Sendable (_ page: Int, _ size: Int, _ category: String?) async throws ->
      VotePage,
    clock: any Clock<Duration>, pageSize: Int = 20, loadingThrottle: Duration = .milliseconds(200)
  ) {
    self.fetchCategories = fetchCategories
    self.fetchPopular = fetchPopular
    self.fetchVotes = fetchVotes
    self.clock = clock
    self.pageSize = pageSize
    self.loadingThrottle = loadingThrottle
  }
}

import ComposableRuntime

/// The `votes` store: three lists loaded in parallel over HTTP behind one loading flag.
public enum VotesStore: StoreDefinition {
  public struct Options: StoreOptions {
    public var votesURL = "http://127.0.0.1:8765"

    public init() {}

    public static let arguments: [StoreOption<Self>] = [
      StoreOption(
        "votes-url", \.votesURL,
        help:
          "Base URL of the votes API (votes): Tests/servers/fixture_server.py serves it, on this "
          + "port under `make demo`.")
    ]
  }

  public static let name = "votes"
  public static let summary =
    "Three vote lists (categories, popular, paged votes from --votes-url) loaded in parallel "
    + "behind one loading flag."
  public static let initialState = VotesState()

  public static func reducer(options: Options, services: Services) -> VotesReducer {
    VotesReducer(
      dependencies: .live(http: services.http, baseURL: options.votesURL, clock: services.clock))
  }

  public static let actions: [ActionDescriptor] = [
    .init(
      "onAppear", sentBy: .host, "Loads the three lists in parallel; only the first time."),
    .init(
      "loadNextPage", sentBy: .host,
      "Loads the next page of votes while there is one; never the same page twice at once."),
    .init("refresh", sentBy: .host, "Cancels what is loading and loads all three lists again."),
    .init(
      "categorySelected", sentBy: .host,
      "Shows only one category's votes (null: all), from the first page."),
    .init("getInitialVoteItems", sentBy: .effect, "Loads the first page of votes."),
    .init("getPopularVoteItems", sentBy: .effect, "Loads the popular votes."),
    .init("getVoteHeaderSectionItems", sentBy: .effect, "Loads the header's categories."),
    .init("task.willRun", sentBy: .effect, "A load started."),
    .init(
      "task.didFinish", sentBy: .effect, "A load finished, whether it succeeded or failed."),
    .init(
      "inner.updateVoteItems.success", sentBy: .effect,
      "A page of votes: page 1 replaces the list, later pages append."),
    .init(
      "inner.updateVoteItems.failure", sentBy: .effect, "Loading a page failed."),
    .init(
      "inner.updatePopularItems.success", sentBy: .effect, "The popular votes."),
    .init(
      "inner.updatePopularItems.failure", sentBy: .effect, "Loading the popular votes failed."),
    .init(
      "inner.updateVoteHeaderCategory.success", sentBy: .effect, "The categories."),
    .init(
      "inner.updateVoteHeaderCategory.failure", sentBy: .effect,
      "Loading the categories failed."),
    .init(
      "isLoading", sentBy: .effect,
      "Shows or hides the loading indicator; at most one change per 0.2 s (the latest wins)."),
  ]

}

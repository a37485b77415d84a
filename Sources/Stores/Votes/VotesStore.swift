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
      "Shows only one category's votes (null: all), from the first page.",
      payload: [.init("value", Schema.nullable(Schema.string))]),
    .init("getInitialVoteItems", sentBy: .effect, "Loads the first page of votes."),
    .init("getPopularVoteItems", sentBy: .effect, "Loads the popular votes."),
    .init("getVoteHeaderSectionItems", sentBy: .effect, "Loads the header's categories."),
    .init("task.willRun", sentBy: .effect, "A load started."),
    .init(
      "task.didFinish", sentBy: .effect, "A load finished, whether it succeeded or failed."),
    .init(
      "inner.updateVoteItems.success", sentBy: .effect,
      "A page of votes: page 1 replaces the list, later pages append.",
      payload: [.init("value", page)]),
    .init(
      "inner.updateVoteItems.failure", sentBy: .effect, "Loading a page failed.",
      payload: [.init("value", Schema.requestFailure)]),
    .init(
      "inner.updatePopularItems.success", sentBy: .effect, "The popular votes.",
      payload: [.init("value", Schema.array(of: vote))]),
    .init(
      "inner.updatePopularItems.failure", sentBy: .effect, "Loading the popular votes failed.",
      payload: [.init("value", Schema.requestFailure)]),
    .init(
      "inner.updateVoteHeaderCategory.success", sentBy: .effect, "The categories.",
      payload: [.init("value", Schema.array(of: category))]),
    .init(
      "inner.updateVoteHeaderCategory.failure", sentBy: .effect,
      "Loading the categories failed.", payload: [.init("value", Schema.requestFailure)]),
    .init(
      "isLoading", sentBy: .effect,
      "Shows or hides the loading indicator; at most one change per 0.2 s (the latest wins).",
      payload: [.init("value", Schema.boolean)]),
  ]

  public static let stateSchema: JSONValue = [
    "type": "object",
    "properties": [
      "hasAppeared": Schema.boolean,
      "isLoading": Schema.boolean,
      "runningTasks": ["type": "integer", "minimum": 0, "description": "loads not finished"],
      "categories": Schema.array(of: category),
      "popularItems": Schema.array(of: vote),
      "voteItems": Schema.array(of: vote),
      "selectedCategory": Schema.nullable(Schema.string),
      "page": ["type": "integer", "minimum": 0, "description": "last page loaded, 0: none"],
      "hasNext": Schema.boolean,
      "pageInFlight": Schema.nullable(Schema.integer),
      "errors": Schema.object([
        "categories": Schema.nullable(Schema.requestFailure),
        "popular": Schema.nullable(Schema.requestFailure),
        "votes": Schema.nullable(Schema.requestFailure),
      ]),
    ],
    "required": [
      "hasAppeared", "isLoading", "runningTasks", "categories", "popularItems", "voteItems",
      "selectedCategory", "page", "hasNext", "pageInFlight", "errors",
    ],
    "additionalProperties": false,
  ]

  private static let vote = Schema.object([
    "id": Schema.integer, "title": Schema.string, "category": Schema.string,
    "votes": Schema.integer,
  ])
  private static let category = Schema.object(["id": Schema.string, "name": Schema.string])
  private static let page = Schema.object([
    "items": Schema.array(of: vote), "page": Schema.integer, "size": Schema.integer,
    "hasNext": Schema.boolean,
  ])
}

import ComposableRuntime
import VotesFeature

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
}

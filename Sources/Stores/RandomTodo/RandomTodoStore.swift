import ComposableRuntime

/// The `randomTodo` store: a random todo over HTTP, refreshed by a timer.
public enum RandomTodoStore: StoreDefinition {
  public struct Options: StoreOptions {
    public var todosURL = "https://jsonplaceholder.typicode.com"

    public init() {}

    public static let arguments: [StoreOption<Self>] = [
      StoreOption(
        "todos-url", \.todosURL,
        help: "Base URL of the todos API (randomTodo): GET <url>/todos/<id>.")
    ]
  }

  public static let name = "randomTodo"
  public static let summary =
    "A random todo (GET {--todos-url}/todos/{1…100}), refreshed every 3 s or on demand."
  public static let initialState = RandomTodoState()

  public static func reducer(options: Options, services: Services) -> RandomTodoReducer {
    RandomTodoReducer(
      dependencies: .live(
        http: services.http, baseURL: options.todosURL, random: services.random,
        clock: services.clock))
  }

  public static let actions: [ActionDescriptor] = [
    .init(
      "viewDidAppear", sentBy: .host,
      "Starts the automatic refresh: a fetch every 3 s, the first 3 s from now. Starting it "
        + "again while it runs does nothing."),
    .init(
      "clickButton", sentBy: .host,
      "Stops the automatic refresh, then fetches once; a newer fetch replaces one in flight."),
    .init(
      "stopRandomText", sentBy: .host,
      "Stops the automatic refresh. A fetch already in flight still completes and is shown."),
    .init("timerTicked", sentBy: .effect, "The automatic refresh's timer fired: fetches once."),
    .init(
      "fetchResult.success", sentBy: .effect, "The todo that was fetched."),
    .init(
      "fetchResult.failure", sentBy: .effect,
      "The fetch failed: no connection, a timeout, TLS, an HTTP status, or a body that is not "
        + "a todo."),
  ]

}

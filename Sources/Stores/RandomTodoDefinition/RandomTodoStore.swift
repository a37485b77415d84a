import ComposableRuntime
import RandomTodoFeature

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
}

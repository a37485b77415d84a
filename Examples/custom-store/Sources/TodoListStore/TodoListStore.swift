import ComposableRuntime
import TodoListFeature

/// The `todos` store: a todo list with a debounced filter, saved atomically to
/// `<data-dir>/todos.json`, and synced with `POST {--todos-sync-url}/todos/sync`.
public enum TodoListStore: StoreDefinition {
  public struct Options: StoreOptions {
    public var syncURL = "http://127.0.0.1:8765"

    public init() {}

    public static let arguments: [StoreOption<Self>] = [
      StoreOption(
        "todos-sync-url", \.syncURL,
        help: "Base URL of the todos server (todos): POST <url>/todos/sync.")
    ]
  }

  public static let name = "todos"
  public static let summary =
    "A todo list: a filter applied 300 ms after typing stops, saved to <data-dir>/todos.json, "
    + "synced with POST {--todos-sync-url}/todos/sync."
  public static let initialState = TodoListState()

  public static func reducer(options: Options, services: Services) -> TodoListReducer {
    let file = TodosFile(file: services.savedFile("todos.json"))
    let http = services.http
    let syncURL = options.syncURL
    return TodoListReducer(
      dependencies: TodoListDependencies(
        load: { try await file.load() },
        save: { try await file.save($0) },
        sync: { try await syncTodos($0, http: http, baseURL: syncURL) },
        clock: services.clock, now: services.now))
  }
}

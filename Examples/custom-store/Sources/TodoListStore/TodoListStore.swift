import ComposableActor

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

  public static let actions: [ActionDescriptor] = [
    .init(
      "add", sentBy: .host,
      "Appends a todo with the next id; the title is trimmed, and a blank one adds nothing."),
    .init(
      "todos.element", sentBy: .host,
      "An action of the todo with this id: toggled flips done; renamed (title) sets the title, "
        + "trimmed, a blank one changing nothing. An id no todo has changes nothing and is "
        + "answered with an unknown_element error line."),
    .init(
      "delete", sentBy: .host, "Removes the todo; an unknown id does nothing."),
    .init(
      "move", sentBy: .host,
      "Moves the todo at position from so that it ends at position to (from 0); positions out "
        + "of range move nothing."),
    .init(
      "filterChanged", sentBy: .host,
      "Sets the filter text; the list is filtered once it stays unchanged for 300 ms."),
    .init("save", sentBy: .host, "Saves the list to <data-dir>/todos.json, atomically."),
    .init("load", sentBy: .host, "Replaces the list with the one in <data-dir>/todos.json."),
    .init(
      "sync", sentBy: .host,
      "Fetches the server's todos and merges them in: the server's version of each id it names "
        + "replaces the local one, its new todos are appended, local-only todos stay. A newer "
        + "sync replaces one in flight."),
    .init(
      "filterApplied", sentBy: .effect,
      "The filter stopped changing for 300 ms: visibleIDs now reflect it."),
    .init("saved", sentBy: .effect, "The save succeeded; lastSaved is now."),
    .init(
      "loaded", sentBy: .effect, "The list that was loaded."),
    .init(
      "storageFailed", sentBy: .effect, "A load or save failed; the list was kept."),
    .init(
      "synced", sentBy: .effect, "The server's todos."),
    .init(
      "syncFailed", sentBy: .effect,
      "The sync failed: no connection, a timeout, an HTTP status, or a body that is not a list "
        + "of todos."),
  ]
}

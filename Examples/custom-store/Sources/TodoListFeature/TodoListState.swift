import ComposableDependencies

@FieldwiseState
public struct TodoListState: Equatable, Sendable {
  /// In display order. Ids are unique: new ones come from `nextID`, and loading or syncing
  /// moves `nextID` past every id it brings in.
  public var todos: IdentifiedArrayOf<Todo>
  /// The id of the next todo added. A counter rather than a random id, so that a scenario or a
  /// recording gets the same ids on every run.
  public var nextID: Int
  /// The filter as typed.
  public var filter: String
  /// The filter `visibleIDs` reflects: `filter` once it stopped changing for 300 ms. A host
  /// shows a "filtering…" hint while the two differ.
  public var appliedFilter: String
  /// The ids of the todos whose title contains `appliedFilter` (ignoring case), in list order.
  /// An ordered set, so that deleting a todo finds its id without searching.
  public var visibleIDs: TrackedOrderedSet<Int>
  public var isSaving: Bool
  /// When the last save succeeded, in milliseconds since the Unix epoch.
  public var lastSaved: Int?
  /// The last load or save that failed, until one succeeds.
  public var storageError: StorageError?
  public var isSyncing: Bool
  public var syncError: RequestFailure?

  public init(todos: IdentifiedArrayOf<Todo> = [], nextID: Int = 1) {
    self.todos = todos
    self.nextID = nextID
    filter = ""
    appliedFilter = ""
    visibleIDs = TrackedOrderedSet(todos.ids)
    isSaving = false
    lastSaved = nil
    storageError = nil
    isSyncing = false
    syncError = nil
  }
}

public struct StorageError: Equatable, Codable, Sendable {
  public var operation: StorageOperation
  public var message: String

  public init(operation: StorageOperation, message: String) {
    self.operation = operation
    self.message = message
  }
}

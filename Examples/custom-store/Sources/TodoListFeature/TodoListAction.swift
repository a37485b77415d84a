import ComposableDependencies

/// The todo list's actions; on the wire `{"type":"add","title":"Buy milk"}`,
/// `{"type":"move","from":2,"to":0}`, `{"type":"loaded","value":[…]}`,
/// `{"type":"todos.element","id":2,"action":{"type":"toggled"}}`, …
@ComposableAction
public enum TodoListAction: Equatable {
  /// Appends a todo with the next id; the title is trimmed, and a blank one adds nothing.
  case add(title: String)
  /// An action of the todo with this id: toggled flips done; renamed (title) sets the title,
  /// trimmed, a blank one changing nothing. An id no todo has changes nothing and is answered
  /// with an unknown_element error line.
  case todos(IdentifiedActionOf<TodoFeature>)
  /// Removes the todo; an unknown id does nothing.
  case delete(id: Int)
  /// Moves the todo at position from so that it ends at position to (from 0); positions out
  /// of range move nothing.
  case move(from: Int, to: Int)
  /// Sets the filter text; the list is filtered once it stays unchanged for 300 ms.
  case filterChanged(text: String)
  /// Saves the list to <data-dir>/todos.json, atomically.
  case save
  /// Replaces the list with the one in <data-dir>/todos.json.
  case load
  /// Fetches the server's todos and merges them in: the server's version of each id it names
  /// replaces the local one, its new todos are appended, local-only todos stay. A newer sync
  /// replaces one in flight.
  case sync

  /// The filter stopped changing for 300 ms: visibleIDs now reflect it.
  @SentByEffect
  case filterApplied
  /// The save succeeded; lastSaved is now.
  @SentByEffect
  case saved
  /// The list that was loaded.
  @SentByEffect
  case loaded([Todo])
  /// A load or save failed; the list was kept.
  @SentByEffect
  case storageFailed(operation: StorageOperation, message: String)
  /// The server's todos.
  @SentByEffect
  case synced([Todo])
  /// The sync failed: no connection, a timeout, an HTTP status, or a body that is not a list
  /// of todos.
  @SentByEffect
  case syncFailed(RequestFailure)
}

/// Which file operation failed: `isSaving` must end with a failed save, not with a failed load.
public enum StorageOperation: String, Codable, CaseIterable, Sendable {
  case save
  case load
}

extension TodoListAction {
  public enum Cases {
    public static let todos = CasePath<TodoListAction, IdentifiedActionOf<TodoFeature>>(
      embed: TodoListAction.todos
    ) {
      guard case .todos(let action) = $0 else { return nil }
      return action
    }
  }
}

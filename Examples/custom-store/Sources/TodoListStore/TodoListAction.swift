import ComposableActor

/// The todo list's actions; on the wire `{"type":"add","title":"Buy milk"}`,
/// `{"type":"move","from":2,"to":0}`, `{"type":"loaded","value":[…]}`,
/// `{"type":"todos.element","id":2,"action":{"type":"toggled"}}`, …
public enum TodoListAction: ComposableAction, Equatable {
  // From the host.
  case add(title: String)
  /// An action of the todo with this id (``TodoFeature``).
  case todos(IdentifiedActionOf<TodoFeature>)
  case delete(id: Int)
  /// Moves the todo at position `from` so that it ends up at position `to`.
  case move(from: Int, to: Int)
  case filterChanged(text: String)
  case save
  case load
  case sync

  // From effects.
  /// The filter text stopped changing for 300 ms.
  case filterApplied
  case saved
  case loaded([Todo])
  case storageFailed(operation: StorageOperation, message: String)
  case synced([Todo])
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

import ComposableDependencies

/// One todo as a feature of its own: the list runs it for each of its todos with `forEach`, so
/// a host names the todo by its id, `{"type":"todos.element","id":2,"action":{"type":"toggled"}}`.
public struct TodoFeature: Reducer {
  public init() {}

  public func reduce(into state: inout Todo, action: TodoAction) -> Effect<TodoAction> {
    switch action {
    case .toggled:
      state.done.toggle()
      return .none

    case .renamed(let title):
      let title = title.trimmingWhitespace
      guard !title.isEmpty else { return .none }
      state.title = title
      return .none
    }
  }
}

/// What a host does to one todo; on the wire inside a `todos.element` action,
/// `{"type":"toggled"}` or `{"type":"renamed","title":"Buy oat milk"}`.
@ComposableAction
public enum TodoAction: Equatable {
  /// Flips done.
  case toggled
  /// Sets the title, trimmed; a blank one changes nothing.
  case renamed(title: String)
}

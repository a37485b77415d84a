import ComposableDependencies

/// A todo list with a debounced filter, saved to a file and synced from a server; each todo is a
/// ``TodoFeature``, run by `forEach`.
public struct TodoListReducer: Reducer {
  enum CancelID { case filter, save, load, sync }

  let dependencies: TodoListDependencies

  public init(dependencies: TodoListDependencies) {
    self.dependencies = dependencies
  }

  public var body: some Reducer<TodoListState, TodoListAction> {
    Reduce(reduceList)
      .forEach(\.todos, action: TodoListAction.Cases.todos) { TodoFeature() }
  }

  private func reduceList(into state: inout TodoListState, action: TodoListAction) -> Effect<
    TodoListAction
  > {
    switch action {
    case .add(let title):
      let title = title.trimmingWhitespace
      // `nextID` stays at Int.max only when a file or server used that id: adding then does
      // nothing rather than trap.
      guard !title.isEmpty, state.nextID < .max else { return .none }
      let todo = Todo(id: state.nextID, title: title)
      state.nextID += 1
      state.todos.append(todo)
      if todo.matches(state.appliedFilter) { state.visibleIDs.append(todo.id) }
      return .none

    case .todos(.element(let id, .renamed)):
      // The todo was renamed before this runs: it may have come into the filter or left it.
      if let todo = state.todos[id: id],
        todo.matches(state.appliedFilter) != state.visibleIDs.contains(id)
      {
        state.applyFilter()
      }
      return .none

    case .todos:
      return .none

    case .delete(let id):
      guard state.todos.remove(id: id) != nil else { return .none }
      state.visibleIDs.remove(id)
      return .none

    case .move(let from, let to):
      // Positions out of range name nothing: a host racing a delete moves nothing.
      guard from != to, state.todos.indices.contains(from), state.todos.indices.contains(to)
      else { return .none }
      state.todos.move(from: from, to: to)
      state.applyFilter()
      return .none

    case .filterChanged(let text):
      state.filter = text
      // Each keystroke restarts the wait, so the list is filtered once typing pauses.
      return .send(.filterApplied)
        .debounce(
          id: CancelID.filter, for: TodoListDependencies.filterDebounce,
          clock: dependencies.clock)

    case .filterApplied:
      state.appliedFilter = state.filter
      state.applyFilter()
      return .none

    case .save:
      state.isSaving = true
      return .run { [todos = state.todos.elements, save = dependencies.save] send in
        try await save(todos)
        await send(.saved)
      } catch: { error, send in
        await send(.storageFailed(operation: .save, message: "\(error)"))
      }
      // The newest save is the one whose outcome `isSaving` waits for.
      .cancellable(id: CancelID.save, cancelInFlight: true)

    case .load:
      return .run { [load = dependencies.load] send in
        await send(.loaded(try await load()))
      } catch: { error, send in
        await send(.storageFailed(operation: .load, message: "\(error)"))
      }
      .cancellable(id: CancelID.load, cancelInFlight: true)

    case .saved:
      state.isSaving = false
      state.lastSaved = dependencies.now()
      state.storageError = nil
      return .none

    case .loaded(let todos):
      state.replaceTodos(with: todos)
      state.storageError = nil
      return .none

    case .storageFailed(let operation, let message):
      if operation == .save { state.isSaving = false }
      state.storageError = StorageError(operation: operation, message: message)
      return .none

    case .sync:
      state.isSyncing = true
      return .run { [sync = dependencies.sync, todos = state.todos.elements] send in
        await send(.synced(try await sync(todos)))
      } catch: { error, send in
        await send(.syncFailed(RequestFailure(error)))
      }
      .cancellable(id: CancelID.sync, cancelInFlight: true)

    case .synced(let server):
      state.isSyncing = false
      state.syncError = nil
      state.replaceTodos(with: state.todos.elements.merging(server))
      return .none

    case .syncFailed(let failure):
      state.isSyncing = false
      state.syncError = failure
      return .none
    }
  }
}

extension TodoListState {
  /// Recomputes `visibleIDs` from the list and the applied filter.
  mutating func applyFilter() {
    let filter = appliedFilter
    visibleIDs = TrackedOrderedSet(todos.filter { $0.matches(filter) }.map(\.id))
  }

  /// Takes a list that came from outside (the file, the server), keeping `nextID` past every
  /// id in it so that the next todo added gets a fresh one.
  mutating func replaceTodos(with newTodos: [Todo]) {
    todos = []
    todos.append(contentsOf: newTodos)
    if let largest = newTodos.lazy.map(\.id).max(), largest >= nextID {
      nextID = largest == .max ? .max : largest + 1
    }
    applyFilter()
  }
}

extension Todo {
  /// Whether the title contains `filter`, ignoring case; everything matches an empty filter.
  func matches(_ filter: String) -> Bool {
    filter.isEmpty || title.lowercased().contains(filter.lowercased())
  }
}

extension String {
  var trimmingWhitespace: String {
    guard let first = firstIndex(where: { !$0.isWhitespace }),
      let last = lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return String(self[first...last])
  }
}

extension [Todo] {
  /// Merges the server's list into this one: the server is the truth for the ids it names, so
  /// their title and `done` replace the local ones in place; todos only the server has are
  /// appended in its order; todos only this list has (added here, not yet on the server) stay.
  func merging(_ server: [Todo]) -> [Todo] {
    var merged = self
    var positions: [Int: Int] = [:]
    for (index, todo) in merged.enumerated() { positions[todo.id] = index }
    for todo in server {
      if let index = positions[todo.id] {
        merged[index] = todo
      } else {
        positions[todo.id] = merged.count
        merged.append(todo)
      }
    }
    return merged
  }
}

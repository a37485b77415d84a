import ComposableActor

/// `POST {baseURL}/todos/sync` with `todos` as its JSON body; the server answers its todos,
/// both a JSON array of `{"id","title","done"}`.
func syncTodos(_ todos: [Todo], http: HTTPService, baseURL: String) async throws -> [Todo] {
  try await http.send(.post, to: "\(baseURL)/todos/sync", json: todos, decoding: [Todo].self)
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

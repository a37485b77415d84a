import ComposableRuntime
import TodoListFeature

/// `POST {baseURL}/todos/sync` with `todos` as its JSON body; the server answers its todos,
/// both a JSON array of `{"id","title","done"}`.
func syncTodos(_ todos: [Todo], http: HTTPService, baseURL: String) async throws -> [Todo] {
  try await http.send(.post, to: "\(baseURL)/todos/sync", json: todos, decoding: [Todo].self)
}

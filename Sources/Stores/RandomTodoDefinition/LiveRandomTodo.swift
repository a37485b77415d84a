import ComposableRuntime
import RandomTodoFeature

extension RandomTodoDependencies {
  /// Todos from `GET {baseURL}/todos/{id}` (JSONPlaceholder's API), ids from `random`.
  public static func live(
    http: HTTPService, baseURL: String, random: SeededRandom, clock: any Clock<Duration>
  ) -> Self {
    Self(
      fetchTodo: { id in try await http.get(Todo.self, from: "\(baseURL)/todos/\(id)") },
      randomTodoID: { random.int(in: Self.todoIDs) },
      clock: clock)
  }
}

import ComposableDependencies

/// What the random todo screen needs from the world.
public struct RandomTodoDependencies: Sendable {
  /// Fetches `GET {base}/todos/{id}`; throws a ``RequestFailure``.
  public var fetchTodo: @Sendable (_ id: Int) async throws -> Todo
  /// A todo id in 1…100, from the seedable random source.
  public var randomTodoID: @Sendable () -> Int
  public var clock: any Clock<Duration>
  public var refreshInterval: Duration

  public init(
    fetchTodo: @escaping @Sendable (_ id: Int) async throws -> Todo,
    randomTodoID: @escaping @Sendable () -> Int, clock: any Clock<Duration>,
    refreshInterval: Duration = .seconds(3)
  ) {
    self.fetchTodo = fetchTodo
    self.randomTodoID = randomTodoID
    self.clock = clock
    self.refreshInterval = refreshInterval
  }

  /// The ids JSONPlaceholder serves.
  public static let todoIDs = 1...100
}

import ComposableDependencies

/// What the todo list needs from the world; `TodoListStore` builds the live ones from the
/// process's services, tests pass their own.
public struct TodoListDependencies: Sendable {
  /// Reads the saved list; the live one throws a `TodosFileError`.
  public var load: @Sendable () async throws -> [Todo]
  /// Replaces the saved list; the live one throws a `TodosFileError`.
  public var save: @Sendable ([Todo]) async throws -> Void
  /// Sends the list to the server and returns the server's (`POST {sync-url}/todos/sync`);
  /// throws a ``RequestFailure``.
  public var sync: @Sendable ([Todo]) async throws -> [Todo]
  /// What the filter's debounce sleeps on.
  public var clock: any Clock<Duration>
  /// Milliseconds since the Unix epoch, for `lastSaved`.
  public var now: @Sendable () -> Int

  public init(
    load: @escaping @Sendable () async throws -> [Todo],
    save: @escaping @Sendable ([Todo]) async throws -> Void,
    sync: @escaping @Sendable ([Todo]) async throws -> [Todo],
    clock: any Clock<Duration>, now: @escaping @Sendable () -> Int
  ) {
    self.load = load
    self.save = save
    self.sync = sync
    self.clock = clock
    self.now = now
  }

  /// How long the filter text must stay unchanged before the list is filtered.
  public static let filterDebounce = Duration.milliseconds(300)
}

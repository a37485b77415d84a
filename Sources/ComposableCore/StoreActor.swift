/// The one isolation domain that owns every store's state.
///
/// TCA isolates stores to the main actor. Here the process's only event loop is libuv, so the
/// stores get their own global actor whose executor is whatever the host installs: the libuv
/// loop executor in the product, a manually drained executor in unit tests. Either way all
/// state is touched on one thread, and effects started with ``StoreActor/taskExecutor`` run
/// their nonisolated code there too.
@globalActor
public actor StoreActor {
  public static let shared = StoreActor()

  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    guard let executor = Self.installed else {
      fatalError("StoreActor used before StoreActor.install(executor:) was called")
    }
    return executor.asUnownedSerialExecutor()
  }

  /// Installed once before any store exists; read on every hop, so it is not behind a lock.
  /// Tests may replace it between tests, when no store work is in flight.
  nonisolated(unsafe) private static var installed: (any SerialExecutor & TaskExecutor)?

  /// Makes `executor` the executor of every store and of the tasks their effects start.
  public static func install(executor: any SerialExecutor & TaskExecutor) {
    installed = executor
  }

  /// The executor that effect tasks prefer, so that their nonisolated code stays on the
  /// store's thread instead of Swift's global pool.
  public static var taskExecutor: any TaskExecutor {
    guard let executor = installed else {
      fatalError("StoreActor used before StoreActor.install(executor:) was called")
    }
    return executor
  }

  /// Runs `operation` as isolated to the store actor from synchronous code that already runs
  /// on its executor (a libuv callback, or a test draining its executor); traps otherwise.
  @discardableResult
  public static func assumeIsolated<T>(
    _ operation: @StoreActor () throws -> T,
    file: StaticString = #fileID, line: UInt = #line
  ) rethrows -> T {
    preconditionOnExecutor(file: file, line: line)
    return try withoutActuallyEscaping(operation) { isolatedOperation in
      try unsafeBitCast(isolatedOperation, to: (() throws -> T).self)()
    }
  }

  /// `operation` as a function that synchronous code already on the store actor's executor
  /// (a libuv callback) calls, checked at each call as ``assumeIsolated(_:file:line:)`` checks.
  /// For a callback made once and called for every input line or loop iteration:
  /// `assumeIsolated` converts its closure at each call, which allocates.
  package static func assumingIsolated<Argument>(
    _ operation: @escaping @StoreActor (Argument) -> Void,
    file: StaticString = #fileID, line: UInt = #line
  ) -> @Sendable (Argument) -> Void {
    nonisolated(unsafe) let unchecked = unsafeBitCast(operation, to: ((Argument) -> Void).self)
    return { argument in
      preconditionOnExecutor(file: file, line: line)
      unchecked(argument)
    }
  }

  @inline(__always)
  private static func preconditionOnExecutor(file: StaticString, line: UInt) {
    // Asking the executor is a thread comparison; the runtime's general check costs as much as
    // reducing an action, and every input line comes through here.
    if installed?.isIsolatingCurrentContext() != true {
      shared.preconditionIsolated(file: file, line: line)
    }
  }
}

import Synchronization

/// A thread-safe flag that thread-pool work polls to learn that its caller was cancelled.
///
/// Work running on a pool thread cannot see Swift task cancellation; `ThreadPool.run` sets this
/// flag from the task's cancellation handler instead.
public final class CancellationFlag: Sendable {
  private let cancelled = Atomic<Bool>(false)

  public init() {}

  public var isCancelled: Bool {
    cancelled.load(ordering: .acquiring)
  }

  /// Throws `CancellationError` once the flag is set, like `Task.checkCancellation()`.
  public func checkCancellation() throws {
    if isCancelled { throw CancellationError() }
  }

  public func cancel() {
    cancelled.store(true, ordering: .releasing)
  }
}

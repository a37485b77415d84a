/// Runs blocking or CPU-heavy work on libuv's thread pool (`UV_THREADPOOL_SIZE` threads, 4 by
/// default) and resumes the caller from the loop.
///
/// Meant to be called from code running on the loop (a loop-bound actor or an effect task with
/// the loop's executor preference): submission and completion happen on the loop thread; a call
/// from elsewhere hops to the loop to submit. The pool is shared with libuv's file system and
/// DNS requests, so long work delays those: split it, or poll the flag.
public struct ThreadPool: Sendable {
  let loop: EventLoop
  /// Awaited before each piece of work: a scripted session's slow work (a scenario's or a
  /// simulation's), which waits on the virtual clock first. None live.
  private var beforeWork: (@Sendable () async throws -> Void)?

  init(loop: EventLoop) {
    self.loop = loop
  }

  /// This pool, with `hook` awaited before each piece of work is submitted: what it throws
  /// (a cancellation while it waits) is the work's error.
  package func waiting(before hook: @escaping @Sendable () async throws -> Void) -> ThreadPool {
    var pool = self
    pool.beforeWork = hook
    return pool
  }

  /// Runs `work` on a pool thread and returns its result, or rethrows its error.
  ///
  /// On task cancellation, work that has not started is removed from the pool's queue and this
  /// throws `CancellationError` without running it. Work already running gets its
  /// `CancellationFlag` set and is waited for: whatever it then returns or throws is delivered,
  /// so work that polls the flag and throws `CancellationError` ends the call promptly.
  public func run<T: Sendable>(
    _ work: @escaping @Sendable (CancellationFlag) throws -> T
  ) async throws -> T {
    if let beforeWork { try await beforeWork() }
    try Task.checkCancellation()
    let job = PoolWork(loop: loop, work: work)
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        job.submit(continuation)
      }
    } onCancel: {
      job.cancel()
    }
  }
}

import Locks

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An executor that runs jobs only when told to, on the thread that created it: tests and
/// other deterministic drivers install it as the store actor's executor and drain it between
/// steps, so every effect runs in a known order.
public final class ManualExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
  private let lock = Lock()
  private var jobs: [UnownedJob] = []
  private let owner = pthread_self()

  /// An executor owned by the calling thread, with no jobs.
  public init() {}

  /// Keeps `job` until ``runUntilIdle()`` runs it; safe from any thread.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    lock.withLock { jobs.append(job) }
  }

  /// Runs jobs, including those they enqueue, until none is left.
  public func runUntilIdle() {
    while let job = nextJob() {
      job.runSynchronously(
        isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }
  }

  /// Whether jobs wait to run.
  public var hasPendingJobs: Bool { lock.withLock { !jobs.isEmpty } }

  private func nextJob() -> UnownedJob? {
    lock.withLock { jobs.isEmpty ? nil : jobs.removeFirst() }
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  public func checkIsolated() {
    precondition(isOwnerThread, "not on the thread that drains this ManualExecutor")
  }

  public func isIsolatingCurrentContext() -> Bool? { isOwnerThread }

  private var isOwnerThread: Bool { pthread_equal(owner, pthread_self()) != 0 }
}

import CSQLite
import CSQLiteShim
import Locks
@_spi(Hosting) import Protocol

/// Checkpoints on a connection of their own, run on a thread of the caller's pool while the
/// loop thread goes on committing on its: SQLite lets a checkpoint and a writer run at once
/// in WAL mode, and a checkpoint waits for the disk twice.
final class Checkpointer: @unchecked Sendable {
  private let path: String
  private let folder: String
  /// Held by every commit, and by a checkpoint that must run between two.
  private let commits: Lock
  /// Held for a whole checkpoint, so that `close` waits for a running one; guards `connection`
  /// and `closed`.
  private let work = Lock()
  /// Opened by the first checkpoint: a run that never needs one does not pay for it.
  private var connection: Connection?
  private var closed = false
  /// Guards `running` and `failure`, which the loop thread reads without waiting for a
  /// checkpoint.
  private let state = Lock()
  private var running = false
  private var failure: InstanceStorageError?

  init(path: String, folder: String, commits: Lock) {
    self.path = path
    self.folder = folder
    self.commits = commits
  }

  /// A checkpoint job, unless one is still running (or was handed out and has not run yet).
  func job() -> (@Sendable () -> Void)? {
    let claimed = state.withLock {
      if running { return false }
      running = true
      return true
    }
    guard claimed else { return nil }
    return { self.run() }
  }

  private func run() {
    let failure: InstanceStorageError? = work.withLock {
      if closed { return nil }
      do throws(InstanceStorageError) {
        try checkpoint()
        return nil
      } catch {
        return error
      }
    }
    state.withLock {
      running = false
      if self.failure == nil { self.failure = failure }
    }
  }

  /// A log restarts from its beginning (and is cut back to `journal_size_limit`) only when a
  /// commit finds all of it copied, which commits arriving during every checkpoint prevent: it
  /// then grows without bound (by a gigabyte in 3 seconds of back-to-back commits, measured).
  /// Past `walPagesBound`, what came in during the passive pass is therefore copied between two
  /// commits, holding them off for as long as that copy and two syncs take. Holding `commits`
  /// rather than leaving SQLite to take its write lock means the checkpoint cannot lose that
  /// race to a busy loop, and a commit waits no longer than the checkpoint.
  private func checkpoint() throws(InstanceStorageError) {
    if connection == nil { connection = try open() }
    guard let connection else { return }
    let logPages = try connection.checkpoint(SQLITE_CHECKPOINT_PASSIVE, "checkpoint \(folder)")
    guard logPages > SQLiteInstanceStorage.walPagesBound else { return }
    try commits.locked { () throws(InstanceStorageError) -> Void in
      try connection.checkpoint(SQLITE_CHECKPOINT_RESTART, "checkpoint \(folder)")
    }
  }

  /// synchronous = NORMAL syncs the log before a checkpoint copies it and the database after:
  /// what makes `.batch` commits durable. (The setting is the connection's, not the file's.)
  private func open() throws(InstanceStorageError) -> Connection {
    let connection = try Connection(path: path, create: false, operation: "open \(path)")
    csqlite3_busy_timeout(connection.handle, 100)
    try connection.execute("PRAGMA synchronous = NORMAL", "open \(path)")
    return connection
  }

  /// The failure of a past job, once: the next call that can throw reports it.
  func takeFailure() -> InstanceStorageError? {
    state.withLock {
      defer { failure = nil }
      return failure
    }
  }

  /// Waits for a running job, closes the connection (a job handed out and not yet run will do
  /// nothing), and answers a failure not yet reported.
  func close() -> InstanceStorageError? {
    work.withLock {
      closed = true
      connection = nil
    }
    return takeFailure()
  }
}

extension Lock {
  /// `withLock` for a body that throws a `InstanceStorageError`, which `withLock`'s `rethrows` would
  /// turn into `any Error`.
  func locked<T>(_ body: () throws(InstanceStorageError) -> T) throws(InstanceStorageError) -> T {
    try withLock { Result(catching: body) }.get()
  }
}

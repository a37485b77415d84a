import Locks
@_spi(Hosting) import Protocol

/// Durable instances in a folder: `state.sqlite`, an SQLite database in WAL mode, and `lock`,
/// which keeps a second process (or storage) out while this one is open. libsqlite3 is loaded
/// when the first storage opens.
///
/// Commits append to the write-ahead log on the loop thread; checkpoints, which copy the log
/// into the database and wait for the disk, run on another thread through `periodicWork`, so
/// the loop thread waits for the disk only where the fsync policy says it must:
/// - `.always`: every commit syncs the log before it returns (synchronous = FULL).
/// - `.batch`: commits do not wait (synchronous = NORMAL); a checkpoint after each second that
///   had commits syncs the log, and so all of them, off the loop thread.
/// - `.never`: commits do not wait either, and nothing is synced for durability's sake.
/// Under `.always` and `.never`, checkpoints run only to keep the log short. Under every policy a
/// power loss leaves a consistent database, losing at most the commits the policy allows, and a
/// commit may wait for a checkpoint only when the log grew long (see `Checkpointer`).
package final class SQLiteInstanceStorage: InstanceStorage {
  /// The write-ahead log's length, in pages (of 4 KiB), past which `.always` and `.never` fold
  /// it into the database, and a checkpoint makes sure it restarts: a long log takes disk
  /// space, and time to read back after a crash.
  static let walPagesBound = 1000

  package private(set) var lastSequence: Int
  private let folder: String
  private let fsync: FsyncPolicy
  /// Nil once closed, which closes its connection.
  private var database: Database?
  /// Nil once closed, which releases the folder.
  private var lock: FolderLock?
  private let checkpointer: Checkpointer
  /// Held by each commit, so that a checkpoint can take it to run between two.
  private let commits = Lock()
  /// Whether anything was committed since the last checkpoint job was handed out: what
  /// `.batch` has yet to sync.
  private var committedSinceJob = false

  /// Opens the storage in `folder`, creating the folder (but not its parent) and the database
  /// if missing. Throws `.busy` when another process or storage holds the folder, `.corrupt`
  /// when the database is damaged, `.readOnly` when the folder cannot be written, and `.other`
  /// when a newer version wrote it, or libsqlite3 cannot be loaded.
  package init(folder: String, fsync: FsyncPolicy) throws(InstanceStorageError) {
    let lock = try FolderLock(folder: folder)
    let database = try Database(folder: folder, fsync: fsync)
    self.folder = folder
    self.fsync = fsync
    self.lock = lock
    self.database = database
    lastSequence = database.lastSequence
    checkpointer = Checkpointer(path: folder + "/state.sqlite", folder: folder, commits: commits)
  }

  /// The database, once a failure of a past checkpoint job, if any, was reported.
  private func opened() throws(InstanceStorageError) -> Database {
    guard let database else { preconditionFailure("\(folder) was used after it was closed") }
    if let failure = checkpointer.takeFailure() { throw failure }
    return database
  }

  package func load(_ address: StoredAddress) throws(InstanceStorageError) -> StoredInstance? {
    try opened().load(address)
  }

  package func commit(_ changes: [StoredChange], lastSequence: Int) throws(InstanceStorageError) {
    let database = try opened()
    try commits.locked { () throws(InstanceStorageError) in
      try database.commit(changes, lastSequence: lastSequence)
    }
    self.lastSequence = lastSequence
    committedSinceJob = true
  }

  package func keys(of store: String, after: InstanceKey?, limit: Int) throws(InstanceStorageError)
    -> [InstanceKey]
  {
    try opened().keys(of: store, after: after, limit: limit)
  }

  package func history(_ address: StoredAddress) throws(InstanceStorageError) -> StoredHistory? {
    try opened().history(address)
  }

  package func stateFingerprint(of store: String) throws(InstanceStorageError) -> String? {
    try opened().stateFingerprint(of: store)
  }

  /// A checkpoint: under `.batch` when anything was committed since the last one started,
  /// otherwise when the log grew past `walPagesBound`; never two at once. It fails only into
  /// the next call that can throw.
  package func periodicWork() -> (@Sendable () -> Void)? {
    guard let database else { return nil }
    let due = fsync == .batch ? committedSinceJob : database.walPages > Self.walPagesBound
    guard due, let job = checkpointer.job() else { return nil }
    committedSinceJob = false
    // The job folds the whole log; the next commit tells how long it is again.
    database.walPages = 0
    return job
  }

  /// Waits for a running checkpoint, then, under `.batch` and `.always`, checkpoints what is
  /// left on this thread, reporting its failure (under `.never`, SQLite still folds the log
  /// when its last connection closes, but nothing is promised). Closing again does nothing.
  package func close() throws(InstanceStorageError) {
    guard database != nil else { return }
    var failure = checkpointer.close()
    if fsync != .never {
      do throws(InstanceStorageError) {
        try database?.checkpoint()
      } catch {
        failure = failure ?? error
      }
    }
    database = nil
    lock = nil
    if let failure { throw failure }
  }
}

import CSQLite
import CSQLiteShim
@_spi(Hosting) import Protocol

/// The loop thread's connection to `state.sqlite`, with every statement the storage runs,
/// prepared once and reused: a commit runs once per loop iteration.
///
/// The instance tables are keyed by (store, instance), '' for the default instance (a named
/// instance's key is never empty), without a rowid: rows are found, listed and deleted by that
/// key, in the BINARY collation's byte order, which is `InstanceKey`'s. An instance is at most
/// two rows of `snapshots` (the latest, and the history's base before it) and its journal's
/// rows of `batches`; its row of `instances` lists it whichever of them it has. `meta` holds
/// the format, `lastSequence` and each store's state fingerprint (under `fingerprint:STORE`).
final class Database {
  /// The layout of the tables; a folder with a higher one was written by a newer version.
  static let format = 1

  private static let schema = """
    BEGIN IMMEDIATE;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID;
    CREATE TABLE instances (
      store TEXT, instance TEXT, PRIMARY KEY (store, instance)) WITHOUT ROWID;
    CREATE TABLE snapshots (
      store TEXT, instance TEXT, batch INTEGER, state BLOB NOT NULL,
      PRIMARY KEY (store, instance, batch)) WITHOUT ROWID;
    CREATE TABLE batches (
      store TEXT, instance TEXT, number INTEGER, time INTEGER NOT NULL, lines BLOB NOT NULL,
      PRIMARY KEY (store, instance, number)) WITHOUT ROWID;
    INSERT INTO meta (key, value) VALUES ('format', \(format)), ('lastSequence', 0);
    COMMIT;
    """

  /// Past this, a write-ahead log is cut back to it when it restarts after a checkpoint, so a
  /// burst of writes does not keep its disk space for good.
  private static let journalSizeLimit = 16 << 20

  private let connection: Connection
  private let folder: String
  /// The write-ahead log's length in pages after the last commit, which SQLite's WAL hook
  /// writes; allocated so that the hook, a C function, can be handed its address.
  private let walPagesAfterCommit: UnsafeMutablePointer<Int32>

  /// `lastSequence` as stored when the database was opened.
  let lastSequence: Int

  private let begin: Statement
  private let commit: Statement
  private let rollback: Statement
  private let setLastSequence: Statement
  private let setFingerprint: Statement
  private let fingerprint: Statement
  private let addInstance: Statement
  private let addBatch: Statement
  private let addSnapshot: Statement
  private let latestSnapshotBatch: Statement
  private let latestSnapshot: Statement
  private let oldestSnapshotBatches: Statement
  private let snapshotAt: Statement
  private let deleteSnapshotsBefore: Statement
  private let deleteBatchesBefore: Statement
  private let deleteInstance: Statement
  private let deleteSnapshots: Statement
  private let deleteBatches: Statement
  private let firstBatchNumber: Statement
  private let batchesFrom: Statement
  private let keys: Statement

  /// Opens `FOLDER/state.sqlite`, creating its tables when it is new; checkpoints are left to
  /// the storage's own calls.
  init(folder: String, fsync: FsyncPolicy) throws(InstanceStorageError) {
    let path = folder + "/state.sqlite"
    let opening = "open \(path)"
    let connection = try Connection(path: path, create: true, operation: opening)
    func prepare(_ sql: String) throws(InstanceStorageError) -> Statement {
      try Statement(connection, sql, opening)
    }
    // Nothing else writes (the folder is locked, and the checkpoint that restarts the log holds
    // commits off itself): a lock held for long means something is wrong.
    csqlite3_busy_timeout(connection.handle, 100)
    // The first read of the file: one that is not a database fails here, as .corrupt.
    let journalMode = try prepare("PRAGMA journal_mode = WAL")
    guard try journalMode.next(opening), journalMode.text(0) == "wal" else {
      throw InstanceStorageError(
        .other, "cannot \(opening): SQLite cannot keep a write-ahead log there")
    }
    journalMode.reset()
    // Under `.batch` and `.never` a commit does not wait for the disk (the log stays
    // consistent, losing only its last commits on power loss); under `.always` it syncs the log.
    // A wal_autocheckpoint of 0 turns off checkpoints on commit: they run on another thread,
    // through `periodicWork`. It must precede the WAL hook (below), which it would replace.
    // Debian builds SQLite with secure_delete on, which writes every page a delete frees over
    // with zeros: a journal folded into a snapshot would be written to the log twice. FAST
    // still clears what a delete leaves inside the pages it writes anyway.
    try connection.execute(
      """
      PRAGMA synchronous = \(fsync == .always ? "FULL" : "NORMAL");
      PRAGMA wal_autocheckpoint = 0;
      PRAGMA secure_delete = FAST;
      PRAGMA journal_size_limit = \(Self.journalSizeLimit);
      """, opening)
    let tables = try prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
    var names: Set<String> = []
    while try tables.next(opening) { names.insert(tables.text(0)) }
    tables.reset()
    if names.isEmpty {
      try connection.execute(Self.schema, opening)
    } else if !names.contains("meta") {
      throw InstanceStorageError(
        .other, "cannot \(opening): it is not a state database (no meta table)")
    }
    let meta = try prepare("SELECT value FROM meta WHERE key = ?1")
    func integer(_ key: String) throws(InstanceStorageError) -> Int {
      defer { meta.reset() }
      meta.bind(key, at: 1)
      guard try meta.next(opening), meta.isInteger(0) else {
        throw InstanceStorageError(
          .corrupt, "cannot \(opening): its meta table has no integer \(key)")
      }
      return meta.int(0)
    }
    // A process that ended without closing (killed, or out of power) leaves its log behind,
    // since checkpoints run only about once a second: fold it in now, or a process killed again
    // and again would leave a log that grows without bound, and each start reads it whole. A
    // fold that fails (a full disk) leaves the log as it was, which is still read back whole:
    // the folder must open, to be read or exported, all the same.
    _ = try? connection.checkpoint(SQLITE_CHECKPOINT_TRUNCATE, opening)
    let format = try integer("format")
    guard format <= Self.format else {
      throw InstanceStorageError(
        .other,
        "cannot open \(folder): a newer version wrote it (state format \(format); this version "
          + "reads format \(Self.format))")
    }
    lastSequence = try integer("lastSequence")

    begin = try prepare("BEGIN IMMEDIATE")
    commit = try prepare("COMMIT")
    rollback = try prepare("ROLLBACK")
    setLastSequence = try prepare("UPDATE meta SET value = ?1 WHERE key = 'lastSequence'")
    setFingerprint = try prepare(
      "INSERT OR REPLACE INTO meta (key, value) VALUES ('fingerprint:' || ?1, ?2)")
    fingerprint = try prepare("SELECT value FROM meta WHERE key = 'fingerprint:' || ?1")
    addInstance = try prepare("INSERT OR IGNORE INTO instances (store, instance) VALUES (?1, ?2)")
    addBatch = try prepare(
      "INSERT INTO batches (store, instance, number, time, lines) VALUES (?1, ?2, ?3, ?4, ?5)")
    addSnapshot = try prepare(
      "INSERT OR REPLACE INTO snapshots (store, instance, batch, state) VALUES (?1, ?2, ?3, ?4)")
    latestSnapshotBatch = try prepare(
      "SELECT batch FROM snapshots WHERE store = ?1 AND instance = ?2 ORDER BY batch DESC LIMIT 1"
    )
    latestSnapshot = try prepare(
      """
      SELECT batch, state FROM snapshots WHERE store = ?1 AND instance = ?2
      ORDER BY batch DESC LIMIT 1
      """)
    oldestSnapshotBatches = try prepare(
      "SELECT batch FROM snapshots WHERE store = ?1 AND instance = ?2 ORDER BY batch LIMIT 2")
    snapshotAt = try prepare(
      "SELECT state FROM snapshots WHERE store = ?1 AND instance = ?2 AND batch = ?3")
    deleteSnapshotsBefore = try prepare(
      "DELETE FROM snapshots WHERE store = ?1 AND instance = ?2 AND batch < ?3")
    deleteBatchesBefore = try prepare(
      "DELETE FROM batches WHERE store = ?1 AND instance = ?2 AND number < ?3")
    deleteInstance = try prepare("DELETE FROM instances WHERE store = ?1 AND instance = ?2")
    deleteSnapshots = try prepare("DELETE FROM snapshots WHERE store = ?1 AND instance = ?2")
    deleteBatches = try prepare("DELETE FROM batches WHERE store = ?1 AND instance = ?2")
    firstBatchNumber = try prepare(
      "SELECT number FROM batches WHERE store = ?1 AND instance = ?2 ORDER BY number LIMIT 1")
    batchesFrom = try prepare(
      """
      SELECT number, time, lines FROM batches WHERE store = ?1 AND instance = ?2 AND number >= ?3
      ORDER BY number
      """)
    keys = try prepare(
      "SELECT instance FROM instances WHERE store = ?1 AND instance > ?2 ORDER BY instance LIMIT ?3"
    )
    self.connection = connection
    self.folder = folder
    // Last, once nothing can throw: a failed init would leak it.
    walPagesAfterCommit = .allocate(capacity: 1)
    walPagesAfterCommit.initialize(to: 0)
    csqlite3_wal_hook(
      connection.handle,
      { pages, _, _, count in
        pages?.assumingMemoryBound(to: Int32.self).pointee = count
        return SQLITE_OK
      }, walPagesAfterCommit)
  }

  deinit {
    csqlite3_wal_hook(connection.handle, nil, nil)
    walPagesAfterCommit.deallocate()
  }

  /// The write-ahead log's length in pages after the last commit; 0 until the next commit once
  /// the storage started a checkpoint of it.
  var walPages: Int {
    get { Int(walPagesAfterCommit.pointee) }
    set { walPagesAfterCommit.pointee = Int32(newValue) }
  }

  func commit(_ changes: [StoredChange], lastSequence: Int) throws(InstanceStorageError) {
    try begin.run("commit to \(folder)")
    do throws(InstanceStorageError) {
      for change in changes { try apply(change) }
      setLastSequence.bind(lastSequence, at: 1)
      try setLastSequence.run("commit to \(folder)")
      try commit.run("commit to \(folder)")
    } catch {
      // Some failures roll the transaction back themselves; this one then fails, harmlessly.
      try? rollback.run("roll back a commit to \(folder)")
      throw error
    }
  }

  private func apply(_ change: StoredChange) throws(InstanceStorageError) {
    switch change {
    case .append(let address, let batch):
      // Only an instance's first batch can find it unstored: skipping the lookup for the
      // others spares each commit a page of the instances table per instance it changes.
      if batch.number == 0 {
        addInstance.bind(address)
        try addInstance.run("commit batch \(batch.number) of \(address) to \(folder)")
      }
      addBatch.bind(address)
      addBatch.bind(batch.number, at: 3)
      addBatch.bind(batch.time, at: 4)
      addBatch.bind(batch.lines, at: 5)
      try addBatch.run("commit batch \(batch.number) of \(address) to \(folder)")
    case .snapshot(let address, let state, let nextBatch):
      try snapshot(address, state: state, nextBatch: nextBatch)
    case .forget(let address):
      for statement in [deleteInstance, deleteSnapshots, deleteBatches] {
        statement.bind(address)
        try statement.run("forget \(address) in \(folder)")
      }
    case .stateFingerprint(let store, let value):
      setFingerprint.bind(store, at: 1)
      setFingerprint.bind(value, at: 2)
      try setFingerprint.run("commit the state fingerprint of \(store) to \(folder)")
    case .release:
      // The folder's lock makes every instance this process's.
      break
    }
  }

  /// The latest snapshot becomes the base, `state` the latest. A snapshot as of the same batch
  /// as the latest replaces it, being the same state: the base it then leaves is that state,
  /// as the protocol has it, with nothing before it kept.
  private func snapshot(_ address: StoredAddress, state: [UInt8], nextBatch: Int)
    throws(InstanceStorageError)
  {
    let operation = {
      "commit the snapshot of \(address) as of batch \(nextBatch) to \(self.folder)"
    }
    addInstance.bind(address)
    try addInstance.run(operation())
    latestSnapshotBatch.bind(address)
    let latest = try latestSnapshotBatch.next(operation()) ? latestSnapshotBatch.int(0) : nil
    latestSnapshotBatch.reset()
    if let latest, nextBatch < latest {
      throw InstanceStorageError(
        .other, "cannot \(operation()): the latest one is as of batch \(latest), a later one")
    }
    addSnapshot.bind(address)
    addSnapshot.bind(nextBatch, at: 3)
    addSnapshot.bind(state, at: 4)
    try addSnapshot.run(operation())
    guard let latest else { return }
    for statement in [deleteSnapshotsBefore, deleteBatchesBefore] {
      statement.bind(address)
      statement.bind(latest, at: 3)
      try statement.run(operation())
    }
  }

  func load(_ address: StoredAddress) throws(InstanceStorageError) -> StoredInstance? {
    latestSnapshot.bind(address)
    var snapshot: (batch: Int, state: [UInt8])?
    if try latestSnapshot.next("load \(address) from \(folder)") {
      snapshot = (latestSnapshot.int(0), latestSnapshot.bytes(1))
    }
    latestSnapshot.reset()
    let batches = try batches(
      of: address, from: snapshot?.batch ?? 0, "load \(address) from \(folder)")
    guard snapshot != nil || !batches.isEmpty else { return nil }
    return StoredInstance(
      snapshot: snapshot?.state, batches: batches,
      nextBatch: max(batches.last.map { $0.number + 1 } ?? 0, snapshot?.batch ?? 0))
  }

  /// With two snapshots, the older is the base. With one, the base is the store's initial state
  /// if the journal still starts at batch 0, so that the two chain; it does not once a snapshot
  /// replaced one as of the same batch, deleting the batches before it, nor for an instance
  /// stored from a snapshot. Then, or when the snapshot is as of batch 0 (it may not be the
  /// initial state: nothing says the instance began there), the snapshot is its own base.
  func history(_ address: StoredAddress) throws(InstanceStorageError) -> StoredHistory? {
    let operation = { "read the history of \(address) in \(self.folder)" }
    var snapshotBatches: [Int] = []
    oldestSnapshotBatches.bind(address)
    while try oldestSnapshotBatches.next(operation()) {
      snapshotBatches.append(oldestSnapshotBatches.int(0))
    }
    oldestSnapshotBatches.reset()
    var base = snapshotBatches.first
    if snapshotBatches.count == 1, let only = base, only > 0 {
      firstBatchNumber.bind(address)
      if try firstBatchNumber.next(operation()), firstBatchNumber.int(0) == 0 { base = nil }
      firstBatchNumber.reset()
    }
    let batches = try batches(of: address, from: base ?? 0, operation())
    guard !snapshotBatches.isEmpty || !batches.isEmpty else { return nil }
    guard let base else { return StoredHistory(base: nil, batches: batches) }
    snapshotAt.bind(address)
    snapshotAt.bind(base, at: 3)
    defer { snapshotAt.reset() }
    guard try snapshotAt.next(operation()) else {
      throw InstanceStorageError(.corrupt, "cannot \(operation()): its base snapshot is missing")
    }
    return StoredHistory(base: snapshotAt.bytes(0), batches: batches)
  }

  /// The batches numbered `first` and after, oldest first.
  private func batches(
    of address: StoredAddress, from first: Int, _ operation: @autoclosure () -> String
  ) throws(InstanceStorageError) -> [StoredBatch] {
    defer { batchesFrom.reset() }
    batchesFrom.bind(address)
    batchesFrom.bind(first, at: 3)
    var batches: [StoredBatch] = []
    while try batchesFrom.next(operation()) {
      batches.append(
        StoredBatch(
          number: batchesFrom.int(0), time: batchesFrom.int(1), lines: batchesFrom.bytes(2))
      )
    }
    return batches
  }

  func keys(of store: String, after: InstanceKey?, limit: Int) throws(InstanceStorageError)
    -> [InstanceKey]
  {
    guard limit > 0 else { return [] }
    defer { keys.reset() }
    keys.bind(store, at: 1)
    // '' sorts before every key, and is the default instance's, which is not listed.
    keys.bind(after?.value ?? "", at: 2)
    keys.bind(limit, at: 3)
    var found: [InstanceKey] = []
    while try keys.next("list the instances of \(store) in \(folder)") {
      let value = keys.text(0)
      guard let key = try? InstanceKey(validating: value) else {
        throw InstanceStorageError(
          .corrupt, "cannot list the instances of \(store) in \(folder): a stored key is invalid")
      }
      found.append(key)
    }
    return found
  }

  func stateFingerprint(of store: String) throws(InstanceStorageError) -> String? {
    defer { fingerprint.reset() }
    fingerprint.bind(store, at: 1)
    let found = try fingerprint.next("read the state fingerprint of \(store) in \(folder)")
    return found ? fingerprint.text(0) : nil
  }

  /// Folds the write-ahead log into the database on this connection, for `close`: with no
  /// commit running, all of it.
  func checkpoint() throws(InstanceStorageError) {
    try connection.checkpoint(SQLITE_CHECKPOINT_PASSIVE, "checkpoint \(folder)")
  }
}

/// Where durable instances keep their state (`run --state-dir`): the one interface a storage
/// engine implements, SQLite in a folder by default.
///
/// An instance is stored as a journal of batches, each the output lines (action lines, or
/// `state` lines under `--emit ticks`) one loop iteration wrote about it, whose patches applied
/// in order to the instance's latest snapshot give its state. A snapshot replaces the journal
/// before it, so that resuming reads a bounded amount; the snapshot before it is kept as the
/// base of the instance's history, so that `export` has at least one journal's worth of it.
///
/// Every change of a loop iteration is committed at once, before its lines are written to
/// stdout: all of them or none. Calls come from the loop thread only, one at a time.
@_spi(Hosting)
public protocol InstanceStorage: AnyObject {
  /// The last `seq` committed: a new process goes on numbering from it.
  var lastSequence: Int { get }

  /// What is stored of the instance, nil when nothing is.
  func load(_ address: StoredAddress) throws(InstanceStorageError) -> StoredInstance?

  /// Whether instances are claimed one by one (storage shared by several processes): then
  /// ``activate(_:)`` claims an instance for this process, and a `.release` change gives it up
  /// when it leaves memory. Storage that one process holds whole (a locked folder) does not.
  var claimsInstances: Bool { get }

  /// Makes the instance this process's and answers what is stored of it, as ``load(_:)``
  /// does; throws `.elsewhere` when another live process has it.
  func activate(_ address: StoredAddress) throws(InstanceStorageError) -> StoredInstance?

  /// Applies `changes` in order and records `lastSequence`, in one transaction: when it throws,
  /// nothing of them is stored.
  func commit(_ changes: [StoredChange], lastSequence: Int) throws(InstanceStorageError)

  /// Up to `limit` keys of the store's stored named instances, in the byte order of their
  /// UTF-8, from just past `after`.
  func keys(of store: String, after: InstanceKey?, limit: Int) throws(InstanceStorageError)
    -> [InstanceKey]

  /// The instance's history: the base snapshot (nil for the store's initial state) and every
  /// batch after it, oldest first. Nil when nothing is stored.
  func history(_ address: StoredAddress) throws(InstanceStorageError) -> StoredHistory?

  /// The fingerprint of a store's state schema as the folder's last writer had it, nil if no
  /// instance of the store was ever stored.
  func stateFingerprint(of store: String) throws(InstanceStorageError) -> String?

  /// Called about once a second on the loop thread: work that makes what was committed
  /// survive power loss (under `--fsync batch`) or folds a long write-ahead log into the
  /// database, to run on another thread while commits go on; nil when there is none.
  func periodicWork() -> (@Sendable () -> Void)?

  /// Makes everything committed durable as the fsync policy promises, and releases the folder.
  func close() throws(InstanceStorageError)
}

extension InstanceStorage {
  public var claimsInstances: Bool { false }

  public func activate(_ address: StoredAddress) throws(InstanceStorageError) -> StoredInstance? {
    try load(address)
  }
}

/// One instance of one store: `instance` is nil for the store's default instance.
@_spi(Hosting)
public struct StoredAddress: Hashable, Sendable, CustomStringConvertible {
  public let store: String
  public let instance: InstanceKey?

  public init(store: String, instance: InstanceKey?) {
    self.store = store
    self.instance = instance
  }

  /// `primes` for a default instance, `primes "user-42"` for a named one: as messages name it.
  public var description: String {
    instance.map { "\(store) \"\($0)\"" } ?? store
  }
}

/// What resuming an instance reads.
@_spi(Hosting)
public struct StoredInstance: Sendable, Equatable {
  /// The state at the latest snapshot, as JSON text; nil when the instance has none yet (it
  /// began in the store's initial state).
  public var snapshot: [UInt8]?
  /// The batches after the snapshot, oldest first.
  public var batches: [StoredBatch]
  /// The number the instance's next batch takes.
  public var nextBatch: Int

  public init(snapshot: [UInt8]?, batches: [StoredBatch], nextBatch: Int) {
    self.snapshot = snapshot
    self.batches = batches
    self.nextBatch = nextBatch
  }
}

/// The lines one loop iteration wrote about an instance.
@_spi(Hosting)
public struct StoredBatch: Sendable, Equatable {
  /// Numbered from 0 for each instance, one more for each batch.
  public var number: Int
  /// When the iteration ran: milliseconds since the Unix epoch (since start under the virtual
  /// clock).
  public var time: Int
  /// The lines, each ended by a newline, as stdout got them.
  public var lines: [UInt8]

  public init(number: Int, time: Int, lines: [UInt8]) {
    self.number = number
    self.time = time
    self.lines = lines
  }
}

/// What `history` reads: where the instance's history starts, and the batches since.
@_spi(Hosting)
public struct StoredHistory: Sendable, Equatable {
  /// The state the first batch applies to, as JSON text; nil for the store's initial state.
  public var base: [UInt8]?
  public var batches: [StoredBatch]

  public init(base: [UInt8]?, batches: [StoredBatch]) {
    self.base = base
    self.batches = batches
  }
}

/// One change a commit stores.
@_spi(Hosting)
public enum StoredChange: Sendable, Equatable {
  /// Adds a batch to the instance's journal; batch 0 stores the instance, which a later batch
  /// finds stored.
  case append(StoredAddress, StoredBatch)
  /// Makes `state` (JSON text) the instance's latest snapshot, as of before batch
  /// `nextBatch`: the previous snapshot becomes the history's base, and batches before that
  /// base are deleted. The instance is stored if it was not.
  case snapshot(StoredAddress, state: [UInt8], nextBatch: Int)
  /// Deletes the instance: its snapshots and its journal.
  case forget(StoredAddress)
  /// Records the fingerprint of a store's state schema.
  case stateFingerprint(store: String, String)
  /// The instance left this process's memory: another process may claim it now (storage that
  /// ``InstanceStorage/claimsInstances`` only).
  case release(StoredAddress)
}

/// Why storage failed: the message names the folder or the instance and the cause.
@_spi(Hosting)
public struct InstanceStorageError: Error, Sendable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// The disk or the database is full.
    case full
    /// The database is damaged (a corrupt or truncated file).
    case corrupt
    /// The folder is in use by another process.
    case busy
    /// The folder or the file cannot be written.
    case readOnly
    /// The database server cannot be reached, or did not answer in time.
    case unavailable
    /// The instance is active in another process, `owner` (its `--process-id`), or was taken
    /// over by it since this process activated it: the change was not stored.
    case elsewhere(owner: String)
    /// Another process started with this one's `--process-id` and took over its instances.
    case superseded
    /// Anything else: an I/O error, a missing library.
    case other
  }

  public let kind: Kind
  public let message: String
  /// The instance whose change failed, when the failure is that instance's alone (`.elsewhere`
  /// in a commit): the commit's other changes can be stored without it.
  public var address: StoredAddress?

  public init(_ kind: Kind, _ message: String, address: StoredAddress? = nil) {
    self.kind = kind
    self.message = message
    self.address = address
  }

  public var description: String { message }
}

/// How much a commit waits for the disk, as Redis's `appendfsync` (`--fsync`).
@_spi(Hosting)
public enum FsyncPolicy: String, Sendable, CaseIterable {
  /// Every commit reaches the disk before its lines are written: power loss loses nothing a
  /// host read.
  case always
  /// What was committed reaches the disk within about a second, off the loop thread: power
  /// loss loses at most that second; a killed process loses nothing.
  case batch
  /// The operating system writes when it chooses: power loss loses what it had not written; a
  /// killed process loses nothing.
  case never
}

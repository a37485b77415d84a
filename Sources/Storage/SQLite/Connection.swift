import CSQLite
import CSQLiteShim
@_spi(Hosting) import Protocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One SQLite connection. It is opened without SQLite's own mutex: each is used by one thread
/// at a time (the loop thread's, or the checkpoint job's under its lock).
final class Connection {
  let handle: OpaquePointer

  /// Opens (creating it if `create`) the database at `path`; `operation` is what a failure
  /// says could not be done.
  init(path: String, create: Bool, operation: String) throws(InstanceStorageError) {
    if let failure = csqlite_load() {
      throw InstanceStorageError(.other, "cannot \(operation): \(String(cString: failure))")
    }
    var handle: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
    let rc = csqlite3_open_v2(path, &handle, flags, nil)
    // SQLite answers a handle whatever happened, unless it is out of memory; a failed one only
    // tells why, and must still be closed.
    guard let handle else {
      throw InstanceStorageError(.other, "cannot \(operation): out of memory")
    }
    self.handle = handle
    guard rc == SQLITE_OK else { throw error(rc, operation) }
  }

  deinit {
    // Every `Statement` keeps its connection alive, so none is left to finalize here.
    csqlite3_close_v2(handle)
  }

  /// Runs `sql`, one or more statements whose rows, if any, are not needed.
  func execute(_ sql: String, _ operation: @autoclosure () -> String) throws(InstanceStorageError) {
    let rc = csqlite3_exec(handle, sql, nil, nil, nil)
    guard rc == SQLITE_OK else { throw error(rc, operation()) }
  }

  /// Copies the write-ahead log's pages into the database, syncing the log before and the
  /// database after (unless `synchronous` is OFF), and answers how long the log was, in pages.
  /// `SQLITE_CHECKPOINT_PASSIVE` copies what no reader still needs, while commits go on;
  /// `SQLITE_CHECKPOINT_RESTART` holds commits off, copies everything, and waits until the next
  /// commit can restart the log from its beginning. One that finds the log busy answers 0 and
  /// leaves the rest to the next.
  @discardableResult
  func checkpoint(_ mode: Int32, _ operation: @autoclosure () -> String)
    throws(InstanceStorageError)
    -> Int
  {
    var logPages: Int32 = 0
    let rc = csqlite3_wal_checkpoint_v2(handle, nil, mode, &logPages, nil)
    if rc == SQLITE_BUSY { return 0 }
    guard rc == SQLITE_OK else { throw error(rc, operation()) }
    return Int(logPages)
  }

  /// The error for `rc`, the result of the last call on this connection: its kind from the
  /// result code (or from the system's errno, for I/O errors, which SQLite does not classify),
  /// its message "cannot OPERATION: SQLITE'S MESSAGE (ERRNO'S)".
  func error(_ rc: Int32, _ operation: String) -> InstanceStorageError {
    var message = String(cString: csqlite3_errmsg(handle))
    let kind: InstanceStorageError.Kind
    switch rc & 0xFF {
    case SQLITE_FULL: kind = .full
    case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .corrupt
    case SQLITE_BUSY, SQLITE_LOCKED: kind = .busy
    case SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH: kind = .readOnly
    case SQLITE_IOERR, SQLITE_CANTOPEN:
      // SQLite records errno only for these two, so it is not stale here.
      let number = csqlite3_system_errno(handle)
      kind = errorKind(errno: number)
      if number != 0 { message += " (\(String(cString: strerror(number))))" }
    default: kind = .other
    }
    return InstanceStorageError(kind, "cannot \(operation): \(message)")
  }
}

/// The kind of a failed system call's error.
func errorKind(errno number: Int32) -> InstanceStorageError.Kind {
  switch number {
  case ENOSPC, EDQUOT: .full
  case EROFS, EACCES, EPERM: .readOnly
  default: .other
  }
}

/// A prepared statement, kept for the connection's life and reset after each use: a statement
/// left unreset holds its read transaction, which keeps checkpoints from finishing.
final class Statement {
  private let connection: Connection
  private let handle: OpaquePointer
  /// The first failed bind since the last reset: `step` answers it instead of running with a
  /// value left from the statement's previous use.
  private var bindFailure = SQLITE_OK

  init(_ connection: Connection, _ sql: String, _ operation: @autoclosure () -> String)
    throws(InstanceStorageError)
  {
    var handle: OpaquePointer?
    let rc = csqlite3_prepare_v3(
      connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
    guard rc == SQLITE_OK, let handle else { throw connection.error(rc, operation()) }
    self.connection = connection
    self.handle = handle
  }

  deinit {
    csqlite3_finalize(handle)
  }

  func bind(_ value: Int, at index: Int32) {
    record(csqlite3_bind_int64(handle, index, Int64(value)))
  }

  func bind(_ value: String, at index: Int32) {
    var value = value
    value.withUTF8 {
      record(
        csqlite3_bind_text_transient(
          handle, index, UnsafeRawPointer($0.baseAddress)?.assumingMemoryBound(to: CChar.self),
          UInt64($0.count)))
    }
  }

  func bind(_ value: [UInt8], at index: Int32) {
    value.withUnsafeBytes {
      record(csqlite3_bind_blob_transient(handle, index, $0.baseAddress, UInt64($0.count)))
    }
  }

  /// Binds the address's store to ?1 and its instance to ?2 ('' for the default instance, as
  /// the tables key it).
  func bind(_ address: StoredAddress) {
    bind(address.store, at: 1)
    bind(address.instance?.value ?? "", at: 2)
  }

  private func record(_ rc: Int32) {
    if rc != SQLITE_OK && bindFailure == SQLITE_OK { bindFailure = rc }
  }

  /// Runs to the end, for statements that answer no rows.
  func run(_ operation: @autoclosure () -> String) throws(InstanceStorageError) {
    defer { reset() }
    let rc = step()
    guard rc == SQLITE_DONE else { throw connection.error(rc, operation()) }
  }

  /// Steps to the next row: false at the end. A failure resets the statement, which can then be
  /// used again.
  func next(_ operation: @autoclosure () -> String) throws(InstanceStorageError) -> Bool {
    switch step() {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    case let rc:
      let error = connection.error(rc, operation())
      reset()
      throw error
    }
  }

  private func step() -> Int32 {
    bindFailure == SQLITE_OK ? csqlite3_step(handle) : bindFailure
  }

  /// Ends the statement's use (its read transaction, when it ran outside a write one).
  func reset() {
    csqlite3_reset(handle)
    bindFailure = SQLITE_OK
  }

  func isInteger(_ column: Int32) -> Bool {
    csqlite3_column_type(handle, column) == SQLITE_INTEGER
  }

  func int(_ column: Int32) -> Int {
    Int(csqlite3_column_int64(handle, column))
  }

  func bytes(_ column: Int32) -> [UInt8] {
    // The pointer first, then the length, as SQLite's documentation orders them.
    let start = csqlite3_column_blob(handle, column)
    return [UInt8](
      UnsafeRawBufferPointer(start: start, count: Int(csqlite3_column_bytes(handle, column))))
  }

  func text(_ column: Int32) -> String {
    let start = csqlite3_column_text(handle, column)
    return String(
      decoding: UnsafeBufferPointer(
        start: start, count: Int(csqlite3_column_bytes(handle, column))),
      as: UTF8.self)
  }
}

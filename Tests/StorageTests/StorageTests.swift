import CSQLite
import CSQLiteShim
import Dispatch
import Foundation
@_spi(Hosting) import Protocol
import Storage
import XCTest

/// SQLiteInstanceStorage on real files, in a temporary folder, with the real libsqlite3.
final class StorageTests: XCTestCase {
  private var root = ""
  private var folder: String { root + "/state" }

  override func setUpWithError() throws {
    root = FileManager.default.temporaryDirectory.path + "/storage-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
  }

  override func tearDownWithError() throws {
    try FileManager.default.removeItem(atPath: root)
  }

  // MARK: - Round trips

  func testWhatWasCommittedLoadsAgainAfterReopening() throws {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .never)
    XCTAssertEqual(storage.lastSequence, 0)
    XCTAssertNil(try storage.load(counter))
    XCTAssertNil(try storage.history(counter))
    XCTAssertNil(try storage.stateFingerprint(of: "counter"))
    try storage.commit(
      [
        .append(counter, batch(0)), .append(named("a"), batch(0)),
        .stateFingerprint(store: "counter", "f1"),
      ], lastSequence: 3)
    try storage.commit(
      [
        .append(counter, batch(1)), .snapshot(counter, state: json("two"), nextBatch: 2),
        .append(counter, batch(2)), .stateFingerprint(store: "todos", "f2"),
      ], lastSequence: 5)

    func check(_ storage: SQLiteInstanceStorage) throws {
      XCTAssertEqual(storage.lastSequence, 5)
      XCTAssertEqual(
        try storage.load(counter),
        StoredInstance(snapshot: json("two"), batches: [batch(2)], nextBatch: 3))
      XCTAssertEqual(
        try storage.history(counter),
        StoredHistory(base: nil, batches: [batch(0), batch(1), batch(2)]))
      XCTAssertEqual(
        try storage.load(named("a")),
        StoredInstance(snapshot: nil, batches: [batch(0)], nextBatch: 1))
      XCTAssertEqual(try storage.keys(of: "counter", after: nil, limit: 10), [key("a")])
      XCTAssertEqual(try storage.stateFingerprint(of: "counter"), "f1")
      XCTAssertEqual(try storage.stateFingerprint(of: "todos"), "f2")
      XCTAssertNil(try storage.load(StoredAddress(store: "todos", instance: nil)))
    }
    try check(storage)
    try storage.close()
    try storage.close()
    let reopened = try SQLiteInstanceStorage(folder: folder, fsync: .always)
    try check(reopened)
    try reopened.close()
  }

  func testASnapshotMakesTheLatestOneTheBaseAndDeletesTheJournalBeforeIt() throws {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .batch)
    defer { try? storage.close() }
    try storage.commit([.append(counter, batch(0)), .append(counter, batch(1))], lastSequence: 1)
    try storage.commit(
      [.append(counter, batch(2)), .snapshot(counter, state: json("s3"), nextBatch: 3)],
      lastSequence: 2)
    XCTAssertEqual(
      try storage.load(counter), StoredInstance(snapshot: json("s3"), batches: [], nextBatch: 3))
    // One snapshot, and the journal still from batch 0: the initial state is the base.
    XCTAssertEqual(
      try storage.history(counter),
      StoredHistory(base: nil, batches: [batch(0), batch(1), batch(2)]))

    try storage.commit(
      [
        .append(counter, batch(3)), .append(counter, batch(4)),
        .snapshot(counter, state: json("s5"), nextBatch: 5), .append(counter, batch(5)),
      ], lastSequence: 3)
    XCTAssertEqual(
      try storage.load(counter),
      StoredInstance(snapshot: json("s5"), batches: [batch(5)], nextBatch: 6))
    XCTAssertEqual(
      try storage.history(counter),
      StoredHistory(base: json("s3"), batches: [batch(3), batch(4), batch(5)]))
    XCTAssertEqual(try count("batches"), 3)
    XCTAssertEqual(try count("snapshots"), 2)

    // A snapshot as of the same batch as the latest replaces it, and is then the base too.
    try storage.commit([.snapshot(counter, state: json("s5'"), nextBatch: 5)], lastSequence: 4)
    XCTAssertEqual(
      try storage.load(counter),
      StoredInstance(snapshot: json("s5'"), batches: [batch(5)], nextBatch: 6))
    XCTAssertEqual(
      try storage.history(counter), StoredHistory(base: json("s5'"), batches: [batch(5)]))
    XCTAssertEqual(try count("batches"), 1)
    XCTAssertEqual(try count("snapshots"), 1)

    // A snapshot ahead of the journal: the next batch is the snapshot's.
    try storage.commit([.snapshot(counter, state: json("s9"), nextBatch: 9)], lastSequence: 5)
    XCTAssertEqual(
      try storage.load(counter), StoredInstance(snapshot: json("s9"), batches: [], nextBatch: 9))
    XCTAssertEqual(
      try storage.history(counter), StoredHistory(base: json("s5'"), batches: [batch(5)]))
  }

  func testAnInstanceStoredFromASnapshotIsItsOwnBase() throws {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .never)
    defer { try? storage.close() }
    try storage.commit(
      [
        .snapshot(named("late"), state: json("l"), nextBatch: 4), .append(named("late"), batch(4)),
        .snapshot(named("zero"), state: json("z"), nextBatch: 0), .append(named("zero"), batch(0)),
      ], lastSequence: 1)
    XCTAssertEqual(
      try storage.load(named("late")),
      StoredInstance(snapshot: json("l"), batches: [batch(4)], nextBatch: 5))
    XCTAssertEqual(
      try storage.history(named("late")), StoredHistory(base: json("l"), batches: [batch(4)]))
    // As of batch 0, the snapshot may not be the store's initial state: it is the base.
    XCTAssertEqual(
      try storage.history(named("zero")), StoredHistory(base: json("z"), batches: [batch(0)]))
  }

  func testForgetDeletesTheInstanceAndAnAppendAfterItInTheSameCommitStartsItAgain() throws {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .never)
    defer { try? storage.close() }
    let a = named("a")
    try storage.commit(
      [
        .append(a, batch(0)), .append(a, batch(1)), .snapshot(a, state: json("2"), nextBatch: 2),
        .append(a, batch(2)), .snapshot(a, state: json("3"), nextBatch: 3),
        .append(named("b"), batch(0)),
      ], lastSequence: 1)
    let fresh = StoredBatch(number: 0, time: 77, lines: Array("fresh\n".utf8))
    try storage.commit([.forget(a), .append(a, fresh)], lastSequence: 2)
    XCTAssertEqual(
      try storage.load(a), StoredInstance(snapshot: nil, batches: [fresh], nextBatch: 1))
    XCTAssertEqual(try storage.history(a), StoredHistory(base: nil, batches: [fresh]))

    try storage.commit([.forget(a)], lastSequence: 3)
    XCTAssertNil(try storage.load(a))
    XCTAssertNil(try storage.history(a))
    XCTAssertEqual(try storage.keys(of: "counter", after: nil, limit: 10), [key("b")])
    XCTAssertEqual(try count("snapshots"), 0)
  }

  func testKeysComeInTheByteOrderOfTheirUTF8PageByPage() throws {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .never)
    defer { try? storage.close() }
    let values = ["b", "é", "a", "z", "A", "a b", "ab"]
    try storage.commit(
      values.map { .append(named($0), batch(0)) } + [
        .append(counter, batch(0)),
        .append(StoredAddress(store: "other", instance: key("c")), batch(0)),
      ], lastSequence: 1)
    let expected = ["A", "a", "a b", "ab", "b", "z", "é"].map(key)
    XCTAssertEqual(values.map(key).sorted(), expected)

    var listed: [InstanceKey] = []
    var after: InstanceKey?
    while true {
      let page = try storage.keys(of: "counter", after: after, limit: 3)
      listed += page
      guard page.count == 3 else { break }
      after = page.last
    }
    XCTAssertEqual(listed, expected)
    XCTAssertEqual(
      try storage.keys(of: "counter", after: key("ab"), limit: 2), [key("b"), key("z")])
    XCTAssertEqual(try storage.keys(of: "counter", after: key("aa"), limit: 1), [key("ab")])
    XCTAssertEqual(try storage.keys(of: "counter", after: nil, limit: 0), [])
    XCTAssertEqual(try storage.keys(of: "other", after: nil, limit: 5), [key("c")])
    XCTAssertEqual(try storage.keys(of: "none", after: nil, limit: 5), [])
  }

  // MARK: - Opening

  func testASecondOpenerIsRefusedWithTheHoldersPID() throws {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .never)
    XCTAssertEqual(try String(contentsOfFile: folder + "/lock", encoding: .utf8), "\(getpid())\n")
    let refusal = failure { try SQLiteInstanceStorage(folder: folder, fsync: .never) }
    XCTAssertEqual(refusal?.kind, .busy)
    XCTAssertEqual(
      refusal?.message, "\(folder) is in use by process \(getpid())")
    try storage.close()
    try SQLiteInstanceStorage(folder: folder, fsync: .never).close()
  }

  func testAMissingParentIsNamedNotCreated() {
    let error = failure {
      try SQLiteInstanceStorage(folder: root + "/missing/state", fsync: .never)
    }
    XCTAssertEqual(error?.kind, .other)
    XCTAssertEqual(
      error?.message,
      "cannot create \(root)/missing/state: its parent folder \(root)/missing does not exist")
  }

  func testAFolderANewerVersionWroteIsRefused() throws {
    try SQLiteInstanceStorage(folder: folder, fsync: .never).close()
    try execute("UPDATE meta SET value = 2 WHERE key = 'format'")
    let error = failure { try SQLiteInstanceStorage(folder: folder, fsync: .never) }
    XCTAssertEqual(error?.kind, .other)
    XCTAssertEqual(
      error?.message,
      "cannot open \(folder): a newer version wrote it (state format 2; this version reads "
        + "format 1)")
  }

  func testAFileThatIsNotADatabaseIsCorrupt() throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    let garbage = (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
    try Data(garbage).write(to: URL(fileURLWithPath: folder + "/state.sqlite"))
    for _ in 0..<2 {  // The second time, the first did not keep the folder locked.
      let error = failure { try SQLiteInstanceStorage(folder: folder, fsync: .batch) }
      XCTAssertEqual(error?.kind, .corrupt)
      XCTAssertEqual(
        error?.message, "cannot open \(folder)/state.sqlite: file is not a database")
    }
  }

  func testATruncatedDatabaseIsCorruptAtOpen() throws {
    try writeInstances(1000)
    let path = folder + "/state.sqlite"
    XCTAssertEqual(truncate(path, off_t(try fileSize(path) / 2)), 0)
    // SQLite compares the page count in its header with the file's length on its first read.
    let error = failure { try SQLiteInstanceStorage(folder: folder, fsync: .never) }
    XCTAssertEqual(error?.kind, .corrupt)
    XCTAssertEqual(
      error?.message, "cannot open \(path): database disk image is malformed")
  }

  func testLostPagesFailTheLoadsOfTheInstancesOnThemAndNoOthers() throws {
    let expected = try writeInstances(1000)
    // Two pages in the middle of the file zeroed, as lost blocks read back.
    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: folder + "/state.sqlite"))
    let size = try fileSize(folder + "/state.sqlite")
    try handle.seek(toOffset: UInt64(size / 2 / 4096 * 4096))
    try handle.write(contentsOf: Data(count: 2 * 4096))
    try handle.close()

    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .never)
    defer { try? storage.close() }
    var loaded = 0
    var corrupt = 0
    for (address, instance) in expected {
      do throws(InstanceStorageError) {
        let found = try storage.load(address)
        XCTAssertEqual(found, instance)
        loaded += 1
      } catch {
        XCTAssertEqual(error.kind, .corrupt, error.message)
        XCTAssertTrue(error.message.hasPrefix("cannot load \(address) from \(folder): "))
        corrupt += 1
      }
    }
    XCTAssertGreaterThan(loaded, 0)
    XCTAssertGreaterThan(corrupt, 0)
    XCTAssertLessThan(corrupt, expected.count / 2)
    // Instances whose pages were not lost can still be stored.
    try storage.commit([.append(named("new"), batch(0))], lastSequence: 2)
    XCTAssertEqual(
      try storage.load(named("new")),
      StoredInstance(snapshot: nil, batches: [batch(0)], nextBatch: 1))
  }

  // MARK: - Failures

  func testAFailedCommitStoresNothing() throws {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .always)
    let a = named("a")
    try storage.commit([.append(a, batch(0))], lastSequence: 1)
    let loaded = try storage.load(a)

    // Batch 0 again fails last, after the others were written.
    let duplicate = failure {
      try storage.commit(
        [
          .append(named("b"), batch(0)), .snapshot(a, state: json("1"), nextBatch: 1),
          .stateFingerprint(store: "counter", "f"), .append(a, batch(0)),
        ], lastSequence: 2)
    }
    XCTAssertEqual(duplicate?.kind, .other)
    XCTAssertEqual(
      duplicate?.message,
      "cannot commit batch 0 of counter \"a\" to \(folder): UNIQUE constraint failed: "
        + "batches.store, batches.instance, batches.number")

    try storage.commit(
      [.append(a, batch(1)), .snapshot(a, state: json("2"), nextBatch: 2)],
      lastSequence: 3)
    let backwards = failure {
      try storage.commit(
        [.append(a, batch(2)), .snapshot(a, state: json("1"), nextBatch: 1)], lastSequence: 4)
    }
    XCTAssertEqual(
      backwards?.message,
      "cannot commit the snapshot of counter \"a\" as of batch 1 to \(folder): the latest one "
        + "is as of batch 2, a later one")

    func check(_ storage: SQLiteInstanceStorage) throws {
      XCTAssertEqual(storage.lastSequence, 3)
      XCTAssertNil(try storage.load(named("b")))
      XCTAssertNil(try storage.stateFingerprint(of: "counter"))
      XCTAssertEqual(
        try storage.load(a), StoredInstance(snapshot: json("2"), batches: [], nextBatch: 2))
      XCTAssertEqual(
        try storage.history(a), StoredHistory(base: nil, batches: [batch(0), batch(1)]))
      XCTAssertEqual(try storage.keys(of: "counter", after: nil, limit: 5), [key("a")])
    }
    XCTAssertEqual(loaded?.batches, [batch(0)])
    try check(storage)
    try storage.close()
    try check(try SQLiteInstanceStorage(folder: folder, fsync: .never))
  }

  func testAFullDiskFailsTheCommitAndDamagesNothingBefore() throws {
    let disk = try mountTemporaryDisk(size: "4m")
    let folder = disk + "/state"
    // Room to free at the end, for the checkpoint that copies the log into the database.
    try Data(count: 2 << 20).write(to: URL(fileURLWithPath: disk + "/room"))
    var storage = try SQLiteInstanceStorage(folder: folder, fsync: .always)
    var stored: [StoredAddress: StoredInstance] = [:]
    func commit(_ address: StoredAddress, _ state: [UInt8]) throws {
      try storage.commit(
        [.snapshot(address, state: state, nextBatch: 0)], lastSequence: storage.lastSequence + 1)
      stored[address] = StoredInstance(snapshot: state, batches: [], nextBatch: 0)
    }
    for index in 0..<20 { try commit(named("small-\(index)"), json("\(index)")) }
    let big = [UInt8](repeating: UInt8(ascii: "x"), count: 200_000)
    var full: InstanceStorageError?
    for index in 0..<20 where full == nil {
      full = failure { try commit(named("big-\(index)"), big) }
    }
    XCTAssertEqual(full?.kind, .full)
    XCTAssertTrue(full?.message.hasPrefix("cannot commit ") ?? false, full?.message ?? "")
    XCTAssertGreaterThan(stored.count, 21)
    let lastSequence = storage.lastSequence
    func check(_ storage: SQLiteInstanceStorage) throws {
      XCTAssertEqual(storage.lastSequence, lastSequence)
      for (address, instance) in stored { XCTAssertEqual(try storage.load(address), instance) }
    }
    try check(storage)
    // Closing checkpoints, which needs room for the log's pages in the database.
    XCTAssertEqual(failure { try storage.close() }?.kind, .full)
    storage = try SQLiteInstanceStorage(folder: folder, fsync: .always)
    try check(storage)
    try FileManager.default.removeItem(atPath: disk + "/room")
    try storage.close()
    storage = try SQLiteInstanceStorage(folder: folder, fsync: .always)
    try check(storage)
    try storage.close()
  }

  func testAReadOnlyFolderIsRefusedAtOpen() throws {
    let disk = try mountTemporaryDisk(size: "1m")
    try SQLiteInstanceStorage(folder: disk + "/state", fsync: .batch).close()
    try Self.mount(["-o", "remount,ro", disk])
    let error = failure { try SQLiteInstanceStorage(folder: disk + "/state", fsync: .batch) }
    XCTAssertEqual(error?.kind, .readOnly)
    XCTAssertEqual(
      error?.message, "cannot open \(disk)/state/lock for writing: Read-only file system")
  }

  // MARK: - Periodic work

  func testPeriodicWorkUnderBatchChecksPointsWhatWasCommittedSinceTheLastJob() throws {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .batch)
    XCTAssertNil(storage.periodicWork())
    try storage.commit(
      [.snapshot(counter, state: [UInt8](repeating: 0x31, count: 100_000), nextBatch: 0)],
      lastSequence: 1)
    let sizeBefore = try fileSize(folder + "/state.sqlite")
    let job = try XCTUnwrap(storage.periodicWork())
    XCTAssertNil(storage.periodicWork(), "a job was handed out and has not run")
    job()
    XCTAssertGreaterThan(try fileSize(folder + "/state.sqlite"), sizeBefore + 100_000)
    XCTAssertNil(storage.periodicWork(), "nothing was committed since")

    // Commits go on while a job runs on another thread.
    try storage.commit([.append(counter, batch(0))], lastSequence: 2)
    let running = try XCTUnwrap(storage.periodicWork())
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      running()
      done.signal()
    }
    for number in 1..<50 {
      try storage.commit([.append(counter, batch(number))], lastSequence: 2 + number)
    }
    done.wait()
    XCTAssertNotNil(storage.periodicWork())
    try storage.close()
    XCTAssertEqual(
      try SQLiteInstanceStorage(folder: folder, fsync: .never).load(counter)?.batches,
      (0..<50).map(batch))
  }

  func testPeriodicWorkUnderAlwaysAndNeverWaitsForALongLog() throws {
    for policy in [FsyncPolicy.always, .never] {
      let folder = root + "/\(policy)"
      let storage = try SQLiteInstanceStorage(folder: folder, fsync: policy)
      try storage.commit([.append(counter, batch(0))], lastSequence: 1)
      XCTAssertNil(storage.periodicWork(), "\(policy)")
      let megabyte = [UInt8](repeating: 0x32, count: 1 << 20)
      for index in 0..<5 {
        try storage.commit(
          [.snapshot(named("\(index)"), state: megabyte, nextBatch: 0)], lastSequence: 2 + index)
      }
      let job = try XCTUnwrap(storage.periodicWork(), "\(policy)")
      XCTAssertNil(storage.periodicWork(), "\(policy)")
      // Commits all along the job: the log restarts all the same.
      let done = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        job()
        done.signal()
      }
      var number = 1
      repeat {
        try storage.commit([.append(counter, batch(number))], lastSequence: 10 + number)
        number += 1
      } while done.wait(timeout: .now()) == .timedOut
      try storage.commit([.append(counter, batch(number))], lastSequence: 10 + number)
      XCTAssertNil(storage.periodicWork(), "\(policy): the log restarted")
      XCTAssertGreaterThan(try fileSize(folder + "/state.sqlite"), 5 << 20)
      try storage.close()
      XCTAssertEqual(
        try SQLiteInstanceStorage(folder: folder, fsync: policy).load(counter)?.nextBatch,
        number + 1)
    }
  }

  func testAFailedCheckpointIsReportedByTheNextCall() throws {
    let disk = try mountTemporaryDisk(size: "2m")
    let storage = try SQLiteInstanceStorage(folder: disk + "/state", fsync: .batch)
    try storage.commit(
      [.snapshot(counter, state: [UInt8](repeating: 0x33, count: 400_000), nextBatch: 0)],
      lastSequence: 1)
    let filler = disk + "/filler"
    try fill(filler)
    let job = try XCTUnwrap(storage.periodicWork())
    job()
    let error = failure { try storage.load(counter) }
    XCTAssertEqual(error?.kind, .full)
    XCTAssertEqual(
      error?.message, "cannot checkpoint \(disk)/state: database or disk is full")
    XCTAssertEqual(try storage.load(counter)?.snapshot?.count, 400_000, "reported once")
    try FileManager.default.removeItem(atPath: filler)
    try storage.close()
  }

  // MARK: - Helpers

  private let counter = StoredAddress(store: "counter", instance: nil)

  private func key(_ value: String) -> InstanceKey {
    try! InstanceKey(validating: value)
  }

  private func named(_ value: String) -> StoredAddress {
    StoredAddress(store: "counter", instance: key(value))
  }

  private func batch(_ number: Int) -> StoredBatch {
    StoredBatch(number: number, time: 1_000 + number, lines: Array("line \(number)\n".utf8))
  }

  private func json(_ text: String) -> [UInt8] {
    Array("\"\(text)\"".utf8)
  }

  private func failure<T>(
    _ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line
  ) -> InstanceStorageError? {
    do {
      _ = try body()
      return nil
    } catch let error as InstanceStorageError {
      return error
    } catch {
      XCTFail("not a InstanceStorageError: \(error)", file: file, line: line)
      return nil
    }
  }

  /// Stores `count` instances with a snapshot and a batch each, then closes the storage, which
  /// folds the log into `state.sqlite`.
  @discardableResult
  private func writeInstances(_ count: Int) throws -> [(StoredAddress, StoredInstance)] {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .never)
    var written: [(StoredAddress, StoredInstance)] = []
    for index in 0..<count {
      let address = named(String(format: "user-%05d", index))
      let state = json(String(repeating: "\(index)", count: 20))
      try storage.commit(
        [.snapshot(address, state: state, nextBatch: 0), .append(address, batch(0))],
        lastSequence: 1)
      written.append((address, StoredInstance(snapshot: state, batches: [batch(0)], nextBatch: 1)))
    }
    try storage.close()
    return written
  }

  private func fileSize(_ path: String) throws -> Int {
    try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
  }

  /// Writes `path` until the disk is full.
  private func fill(_ path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
    XCTAssertGreaterThanOrEqual(descriptor, 0)
    defer { close(descriptor) }
    let block = [UInt8](repeating: 0, count: 4096)
    while write(descriptor, block, block.count) > 0 {}
    XCTAssertEqual(errno, ENOSPC)
  }

  /// Runs `sql` on the folder's database through a connection of its own.
  private func execute(_ sql: String) throws {
    try withDatabase { database in
      XCTAssertEqual(csqlite3_exec(database, sql, nil, nil, nil), SQLITE_OK)
    }
  }

  /// The number of rows in `table`.
  private func count(_ table: String) throws -> Int {
    try withDatabase { database in
      var statement: OpaquePointer?
      XCTAssertEqual(
        csqlite3_prepare_v3(database, "SELECT count(*) FROM \(table)", -1, 0, &statement, nil),
        SQLITE_OK)
      defer { csqlite3_finalize(statement) }
      XCTAssertEqual(csqlite3_step(statement), SQLITE_ROW)
      return Int(csqlite3_column_int64(statement, 0))
    }
  }

  private func withDatabase<T>(_ body: (OpaquePointer?) throws -> T) throws -> T {
    XCTAssertNil(csqlite_load())
    var database: OpaquePointer?
    XCTAssertEqual(
      csqlite3_open_v2(folder + "/state.sqlite", &database, SQLITE_OPEN_READWRITE, nil),
      SQLITE_OK)
    defer { csqlite3_close_v2(database) }
    return try body(database)
  }

  /// A tmpfs of `size` in the test's folder, unmounted when the test ends; skips the test when
  /// mounting is not allowed.
  private func mountTemporaryDisk(size: String) throws -> String {
    let disk = root + "/disk"
    try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
    do {
      try Self.mount(["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", disk])
    } catch {
      throw XCTSkip("cannot mount a tmpfs: \(error)")
    }
    addTeardownBlock { try Self.umount(disk) }
    return disk
  }

  private static func mount(_ arguments: [String]) throws {
    try run("mount", arguments)
  }

  private static func umount(_ path: String) throws {
    try run("umount", [path])
  }

  private static func run(_ command: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [command] + arguments
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw CommandFailed(command: ([command] + arguments).joined(separator: " "))
    }
  }

  private struct CommandFailed: Error {
    let command: String
  }
}

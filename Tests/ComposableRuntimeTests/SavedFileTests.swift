import Synchronization
import XCTest

@testable import ComposableRuntime

#if canImport(Glibc)
  import Glibc
#endif

final class SavedFileTests: XCTestCase {
  private var folder: TemporaryFolder!
  private var directory: String { folder.path }
  private var loop: EventLoop!

  override func setUpWithError() throws {
    folder = TemporaryFolder(prefix: "saved-file")
    loop = try EventLoop()
  }

  override func tearDown() {
    try? loop.shutdown()
    folder.remove()
  }

  private func file(_ name: String) -> SavedFile {
    SavedFile(path: "\(directory)/\(name)", threadPool: loop.threadPool)
  }

  func testAWriteIsReadBackAndLeavesOnlyTheFile() throws {
    let saved = file("nested/list.json")
    try saved.write(["a", 1, nil], ticket: saved.takeTicket())
    XCTAssertEqual(try saved.read(), ["a", 1, nil])
    XCTAssertEqual(
      String(decoding: try FileIO.readAll(saved.path, limit: 100), as: UTF8.self),
      "[\"a\",1,null]\n")
    XCTAssertEqual(entries(of: "\(directory)/nested"), ["list.json"])
  }

  /// A fault is taken with a ticket, in the order the saves asked, and fails that save alone,
  /// whenever the pool runs it: the file keeps what it held, and the next save writes.
  func testAWriteFaultFailsTheSaveWhoseTicketTookItAndKeepsTheFile() throws {
    let faults = Mutex<[Int32]>([])
    let saved = SavedFile(
      path: "\(directory)/list.json", threadPool: loop.threadPool,
      writeFault: { faults.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
    try saved.write([1], ticket: saved.takeTicket())
    faults.withLock { $0 = [ENOSPC] }
    let failing = saved.takeTicket()
    let next = saved.takeTicket()
    XCTAssertThrowsError(try saved.write([2], ticket: failing)) { error in
      XCTAssertEqual(
        error as? SavedFile.Failure,
        .unwritable(path: saved.path, reason: "No space left on device"))
    }
    XCTAssertEqual(try saved.read(), [1])
    try saved.write([3], ticket: next)
    XCTAssertEqual(try saved.read(), [3])
  }

  /// A process killed while saving leaves its temporary file; the next save removes it, and
  /// only it: not a save in flight in this process, nor one of a process still running.
  func testASaveRemovesTheTemporaryFilesOfProcessesThatAreGone() throws {
    let saved = file("list.json")
    let gone = Int32.max  // above any pid_max: no such process
    let left = [
      "list.json.tmp-\(gone)-12345", "list.json.tmp-\(getpid())-1", "list.json.tmp-1-2",
      "list.json.tmp-\(gone)-x", "list.json.tmp-backup", "other.json.tmp-\(gone)-3",
    ]
    for name in left { try FileIO.writeAtomically([], to: "\(directory)/\(name)") }
    XCTAssertEqual(entries(of: directory), left.sorted())
    try saved.write([1], ticket: saved.takeTicket())
    XCTAssertEqual(
      entries(of: directory), (left.dropFirst() + ["list.json"]).sorted())
  }

  /// A FIFO would hold the reading thread until a writer came, a device or a huge file would
  /// fill the memory: each is refused at once, saying why.
  func testOnlyARegularFileWithinTheLimitIsRead() throws {
    let fifo = file("fifo.json")
    XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
    let device = file("zero.json")
    XCTAssertEqual(symlink("/dev/zero", device.path), 0)
    let huge = file("huge.json")
    try FileIO.writeAtomically([], to: huge.path)
    XCTAssertEqual(truncate(huge.path, off_t(SavedFile.maximumBytes) + 1), 0)  // sparse
    for (saved, reason) in [
      (fifo, "it is not a regular file"), (device, "it is not a regular file"),
      (huge, "it is larger than the limit of \(SavedFile.maximumBytes) bytes"),
    ] {
      XCTAssertThrowsError(try saved.read()) {
        XCTAssertEqual($0 as? SavedFile.Failure, .unreadable(path: saved.path, reason: reason))
      }
    }
  }

  func testAnOlderSaveThatFinishesLastWritesNothing() throws {
    let saved = file("list.json")
    let older = saved.takeTicket()
    let newer = saved.takeTicket()
    try saved.write([2], ticket: newer)
    try saved.write([1], ticket: older)
    XCTAssertEqual(try saved.read(), [2])
  }

  func testEachFailureSaysWhatWentWrong() throws {
    let saved = file("list.json")
    XCTAssertThrowsError(try saved.read()) {
      XCTAssertEqual($0 as? SavedFile.Failure, .missing(path: saved.path))
    }
    try FileIO.writeAtomically(Array("[1,".utf8), to: saved.path)
    XCTAssertThrowsError(try saved.read()) {
      guard case .notJSON(let path, _)? = $0 as? SavedFile.Failure else {
        return XCTFail("\($0)")
      }
      XCTAssertEqual(path, saved.path)
    }
    // A file where the folder should be: the save cannot make it.
    let blocked = file("list.json/inner.json")
    XCTAssertThrowsError(try blocked.write([1], ticket: blocked.takeTicket())) {
      guard case .unwritable(let path, let reason)? = $0 as? SavedFile.Failure else {
        return XCTFail("\($0)")
      }
      XCTAssertEqual(path, blocked.path)
      XCTAssertFalse(reason.isEmpty)
    }
  }
}

/// The names in a folder, without `.` and `..`, sorted.
private func entries(of path: String) -> [String] {
  ((try? FileIO.entries(of: path)) ?? []).map(\.name).sorted()
}

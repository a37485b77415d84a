import ComposableRuntime
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `FileIO.writeOutput(_:to:)`: what a path names keeps being what it was.
final class FileOutputTests: XCTestCase {
  private var folder: TemporaryFolder!
  private var directory: String { folder.path }

  override func setUp() {
    folder = TemporaryFolder(prefix: "file-output")
  }

  override func tearDown() {
    folder.remove()
  }

  private func read(_ path: String) throws -> String {
    String(decoding: try FileIO.readAll(path, limit: 1 << 20), as: UTF8.self)
  }

  private func isLink(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
  }

  private func names() throws -> [String] {
    try FileIO.entries(of: directory).map(\.name).sorted()
  }

  func testARegularFileIsReplaced() throws {
    let path = "\(directory)/out.txt"
    try FileIO.writeOutput(Array("old".utf8), to: path)
    try FileIO.writeOutput(Array("new".utf8), to: path)
    XCTAssertEqual(try read(path), "new")
    XCTAssertEqual(try names(), ["out.txt"])
  }

  func testAChainOfRelativeLinksIsWrittenThroughToItsTarget() throws {
    try FileIO.writeOutput(Array("old".utf8), to: "\(directory)/target")
    XCTAssertEqual(symlink("target", "\(directory)/middle"), 0)
    XCTAssertEqual(symlink("middle", "\(directory)/link"), 0)
    try FileIO.writeOutput(Array("new".utf8), to: "\(directory)/link")
    XCTAssertTrue(isLink("\(directory)/link"))
    XCTAssertTrue(isLink("\(directory)/middle"))
    XCTAssertEqual(try read("\(directory)/target"), "new")
    XCTAssertEqual(try names(), ["link", "middle", "target"])
  }

  func testALinkToNothingCreatesItsTarget() throws {
    XCTAssertEqual(symlink("made/out.txt", "\(directory)/link"), 0)
    try FileIO.writeOutput(Array("new".utf8), to: "\(directory)/link")
    XCTAssertTrue(isLink("\(directory)/link"))
    XCTAssertEqual(try read("\(directory)/made/out.txt"), "new")
  }

  func testALoopOfLinksAndAFolderAreRefusedNamingThePath() throws {
    XCTAssertEqual(symlink("b", "\(directory)/a"), 0)
    XCTAssertEqual(symlink("a", "\(directory)/b"), 0)
    XCTAssertThrowsError(try FileIO.writeOutput([1], to: "\(directory)/a")) { error in
      XCTAssertEqual(
        (error as? FileIO.Failure)?.reason,
        "cannot write \(directory)/a: \(String(cString: strerror(ELOOP)))")
    }
    XCTAssertThrowsError(try FileIO.writeOutput([1], to: directory)) { error in
      XCTAssertEqual((error as? FileIO.Failure)?.code, EISDIR)
    }
    XCTAssertEqual(try names(), ["a", "b"])
  }

  func testOnlyARegularFileIsReplaced() throws {
    let path = "\(directory)/fifo"
    XCTAssertEqual(mkfifo(path, 0o600), 0)
    XCTAssertFalse(try FileIO.replaceFile(named: path, with: [1]))
    XCTAssertFalse(try FileIO.replaceFile(named: directory, with: [1]))
    XCTAssertEqual(try names(), ["fifo"])
  }

  func testAFIFOIsWrittenInPlace() throws {
    let path = "\(directory)/fifo"
    XCTAssertEqual(mkfifo(path, 0o600), 0)
    // Opened for reading first, without waiting, so that the write's open does not block.
    let reader = open(path, O_RDONLY | O_NONBLOCK)
    defer { close(reader) }
    try FileIO.writeOutput(Array("through".utf8), to: path)
    var buffer = [UInt8](repeating: 0, count: 16)
    let count = buffer.withUnsafeMutableBytes { Glibc.read(reader, $0.baseAddress, $0.count) }
    XCTAssertEqual(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self), "through")
    var status = stat()
    XCTAssertEqual(lstat(path, &status), 0)
    XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO)
  }
}

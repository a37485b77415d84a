import ComposableRuntime
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `FileLines`: a file's lines, a chunk at a time, as `replay` and `timeline` read recordings.
final class FileLinesTests: XCTestCase {
  private var folder: TemporaryFolder!
  private var directory: String { folder.path }

  override func setUp() {
    folder = TemporaryFolder(prefix: "file-lines")
  }

  override func tearDown() {
    folder.remove()
  }

  private func lines(of bytes: [UInt8], maximumLineBytes: Int = 1 << 24) throws -> [(
    String, FileLines.Ending
  )] {
    let path = "\(directory)/lines.txt"
    try FileIO.writeOutput(bytes, to: path)
    let lines = try FileLines(path: path, maximumLineBytes: maximumLineBytes)
    XCTAssertEqual(lines.fileBytes, bytes.count)
    var read: [(String, FileLines.Ending)] = []
    while let (line, ending) = try lines.next() {
      read.append((String(decoding: line, as: UTF8.self), ending))
    }
    return read
  }

  func testSplitsAtNewlinesAndTellsALastLineWithoutOne() throws {
    let read = try lines(of: Array("one\n\nthree\nfour".utf8))
    XCTAssertEqual(read.map(\.0), ["one", "", "three", "four"])
    XCTAssertEqual(read.map(\.1), [.newline, .newline, .newline, .endOfFile])
    XCTAssertEqual(try lines(of: Array("a\n".utf8)).map(\.1), [.newline])
    XCTAssertTrue(try lines(of: []).isEmpty)
  }

  func testBytesInMemoryAreHandedOutAsAFilesLines() throws {
    let lines = FileLines(bytes: Array("one\n\nlast".utf8), maximumLineBytes: 10)
    var read: [(String, FileLines.Ending)] = []
    while let (line, ending) = try lines.next() {
      read.append((String(decoding: line, as: UTF8.self), ending))
    }
    XCTAssertEqual(read.map(\.0), ["one", "", "last"])
    XCTAssertEqual(read.map(\.1), [.newline, .newline, .endOfFile])
    XCTAssertEqual(lines.fileBytes, 9)
  }

  func testALineLongerThanAChunkIsWhole() throws {
    // Lines across several 1 MiB reads, and a newline at a chunk's last byte.
    let long = String(repeating: "x", count: 3 << 20)
    let edge = String(repeating: "y", count: (1 << 20) - 1)
    let read = try lines(of: Array("\(edge)\n\(long)\nend\n".utf8))
    XCTAssertEqual(read.map(\.0.count), [edge.count, long.count, 3])
    XCTAssertEqual(read[1].0, long)
  }

  func testALineOverTheLimitIsRefusedWhenReached() throws {
    let path = "\(directory)/long.txt"
    try FileIO.writeOutput(Array("short\n\(String(repeating: "z", count: 100))\n".utf8), to: path)
    let lines = try FileLines(path: path, maximumLineBytes: 50)
    XCTAssertEqual(try lines.next().map { String(decoding: $0.line, as: UTF8.self) }, "short")
    XCTAssertThrowsError(try lines.next()) { error in
      XCTAssertEqual(
        (error as? FileIO.Failure)?.reason, "a line is longer than the limit of 50 bytes")
    }
  }

  func testWhatIsNotARegularFileIsRefused() {
    XCTAssertThrowsError(try FileLines(path: directory, maximumLineBytes: 10)) { error in
      XCTAssertEqual((error as? FileIO.Failure)?.reason, "it is not a regular file")
    }
    XCTAssertThrowsError(try FileLines(path: "\(directory)/missing", maximumLineBytes: 10)) {
      XCTAssertEqual(($0 as? FileIO.Failure)?.code, ENOENT)
    }
  }
}

import ComposableRuntime
import Glibc
import XCTest

@testable import PrimesDefinition

final class FavoritePrimesFileTests: XCTestCase {
  private var directory = ""
  /// The synchronous reads and writes tested here never use the pool; the file needs one.
  private var loop: EventLoop!

  private func favorites(at path: String) -> FavoritePrimesFile {
    FavoritePrimesFile(path: path, threadPool: loop.threadPool)
  }

  override func setUpWithError() throws {
    loop = try EventLoop()
    var template = Array("/tmp/favorites-XXXXXX".utf8CString)
    directory = template.withUnsafeMutableBufferPointer {
      String(cString: mkdtemp($0.baseAddress!))
    }
  }

  override func tearDown() {
    try? loop.shutdown()
    _ = directory.withCString { system("rm -rf '\(String(cString: $0))'") }
  }

  private func contents(_ path: String) throws -> String {
    String(decoding: try FileIO.readAll(path, limit: 1 << 20), as: UTF8.self)
  }

  func testWritesAreReadBack() throws {
    let file = favorites(at: "\(directory)/nested/favorite-primes.json")
    try file.write([2, 3, 5], ticket: file.takeTicket())
    XCTAssertEqual(try file.read(), [2, 3, 5])
    XCTAssertEqual(try contents(file.path), "[2,3,5]\n")
  }

  func testAnOlderSaveNeverOverwritesANewerOne() throws {
    let file = favorites(at: "\(directory)/favorite-primes.json")
    let older = file.takeTicket()
    let newer = file.takeTicket()
    try file.write([7], ticket: newer)
    try file.write([2], ticket: older)
    XCTAssertEqual(try file.read(), [7])
  }

  func testAFailedSaveLeavesNoTemporaryFile() throws {
    // A non-empty directory where the file should be: the final rename fails, even for root.
    let path = "\(directory)/favorite-primes.json"
    mkdir(path, 0o755)
    mkdir("\(path)/occupied", 0o755)
    let file = favorites(at: path)
    XCTAssertThrowsError(try file.write([3], ticket: file.takeTicket())) {
      XCTAssertTrue("\($0)".hasPrefix("Cannot save to \(path):"), "\($0)")
    }
    XCTAssertEqual(try entries(of: directory), ["favorite-primes.json"])
  }

  private func entries(of path: String) throws -> [String] {
    guard let stream = opendir(path) else { throw POSIXError(.ENOENT) }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) {
        String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  func testMissingAndCorruptFilesAreClearErrors() throws {
    let path = "\(directory)/favorite-primes.json"
    let file = favorites(at: path)
    XCTAssertThrowsError(try file.read()) {
      XCTAssertEqual("\($0)", "No favourite primes saved yet at \(path).")
    }
    for (content, reason) in [
      ("[2,", "is not valid JSON"), ("{}", "it is not a JSON array"),
      ("[9]", "9 is not a prime"), ("[2.5]", "2.5 is not an integer"),
      ("[3,2,3]", "3 is listed twice"),
      // A value of any size is quoted in a few dozen characters.
      (
        "[\"\(String(repeating: "x", count: 100_000))\"]",
        "(\"\(String(repeating: "x", count: 40))…\" (100000 bytes) is not an integer)"
      ),
    ] {
      try FileIO.writeAtomically(Array(content.utf8), to: path)
      XCTAssertThrowsError(try file.read()) {
        XCTAssertTrue("\($0)".contains(reason), "\($0)")
        XCTAssertLessThan("\($0)".utf8.count, 400)
      }
    }
  }
}

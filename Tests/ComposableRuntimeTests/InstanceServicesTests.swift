import ComposableRuntime
import Protocol
import XCTest

/// A named instance sees the process's services with files and sockets of its own.
final class InstanceServicesTests: XCTestCase {
  func testAKeyIsOneFileNameThatNoOtherKeyShares() throws {
    let names = try ["user-42", "a/b", "..", "a b", "%41", "A", "é", "\u{1D11E}"].map {
      try InstanceKey(validating: $0).fileName
    }
    XCTAssertEqual(
      names, ["user-42", "a%2Fb", "%2E%2E", "a%20b", "%2541", "A", "%C3%A9", "%F0%9D%84%9E"])
    XCTAssertEqual(Set(names).count, names.count)
  }

  func testALongKeyIsCutAndEndsWithAHashOfTheWholeKey() throws {
    let long = try InstanceKey(validating: String(repeating: "/", count: 255) + "a")
    let other = try InstanceKey(validating: String(repeating: "/", count: 255) + "b")
    XCTAssertEqual(long.fileName.utf8.count, 180 + 1 + 16)
    XCTAssertTrue(long.fileName.hasPrefix(String(repeating: "%2F", count: 60) + "~"))
    XCTAssertNotEqual(long.fileName, other.fileName)
    XCTAssertEqual(long.fileName, try InstanceKey(validating: long.value).fileName)
    // A cut that would end inside a `%XX` ends before it.
    let odd = try InstanceKey(validating: "a" + String(repeating: "/", count: 255))
    XCTAssertTrue(odd.fileName.hasPrefix("a" + String(repeating: "%2F", count: 59) + "~"))
  }
}

import JSON
import XCTest

final class JSONPointerTests: XCTestCase {
  func testEscapingBothWays() throws {
    XCTAssertEqual(JSONPointer.escape("a/b~c"), "a~1b~0c")
    XCTAssertEqual(JSONPointer.escape("plain"), "plain")
    XCTAssertEqual(JSONPointer.escape("~1"), "~01")
    XCTAssertEqual(JSONPointer.unescape("a~1b~0c"), "a/b~c")
    XCTAssertEqual(JSONPointer.unescape("~01"), "~1")
    XCTAssertNil(JSONPointer.unescape("~2"))
    XCTAssertNil(JSONPointer.unescape("a~"))
  }

  func testParsingTokens() throws {
    XCTAssertEqual(try JSONPointer("").tokens, [])
    XCTAssertEqual(try JSONPointer("/").tokens, [""])
    XCTAssertEqual(try JSONPointer("/a/0/b").tokens, ["a", "0", "b"])
    XCTAssertEqual(try JSONPointer("//x/").tokens, ["", "x", ""])
    XCTAssertEqual(try JSONPointer("/a~1b/m~0n").tokens, ["a/b", "m~n"])
    XCTAssertEqual(try JSONPointer("/é/日本").tokens, ["é", "日本"])
    XCTAssertThrowsError(try JSONPointer("a/b")) { error in
      XCTAssertEqual(
        (error as? JSONPointerError)?.message, #"JSON pointer "a/b" does not start with '/'"#)
    }
    XCTAssertThrowsError(try JSONPointer("/a~2"))
  }

  func testDescriptionRoundTrips() throws {
    for tokens in [[], [""], ["a/b", "~", "0"], ["é", "x y"]] {
      let pointer = JSONPointer(tokens: tokens)
      XCTAssertEqual(try JSONPointer(pointer.description), pointer)
    }
    XCTAssertEqual(JSONPointer(tokens: ["a/b", "1"]).description, "/a~1b/1")
  }

  func testRelations() throws {
    let parent = try JSONPointer("/a")
    XCTAssertTrue(try JSONPointer("/a/b").isStrictlyInside(parent))
    XCTAssertFalse(parent.isStrictlyInside(parent))
    XCTAssertFalse(try JSONPointer("/ab").isStrictlyInside(parent))
    XCTAssertEqual(try JSONPointer("/a/b").parent, parent)
    XCTAssertNil(JSONPointer(tokens: []).parent)
  }
}

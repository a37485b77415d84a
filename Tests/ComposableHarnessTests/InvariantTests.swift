import ComposableHarness
import JSON
import XCTest

final class InvariantTests: XCTestCase {
  private let state: JSONValue = [
    "count": 6, "name": "héllo", "favorites": [2, 3, 5], "status": "idle", "ratio": 0.5,
    "nested": ["a/b": ["x": true]],
  ]

  func testComparesNumbersStringsAndValues() throws {
    let holding = [
      "/count <= 6", "/count < 7", "/count >= 6", "/count > 5.5", "/count == 6", "/count != 5",
      "/ratio < 1", "/status == \"idle\"", "/status < \"z\"", "/status in [\"idle\",\"busy\"]",
      "/favorites == [2,3,5]", "/nested/a~1b/x == true", "/missing != 1",
    ]
    for text in holding {
      XCTAssertTrue(try Invariant(text).holds(in: state), text)
    }
    let breaking = [
      "/count <= 5", "/count in [1,2]", "/status > \"z\"", "/count < \"7\"", "/missing == null",
      "/missing < 3", "/favorites < 3",
    ]
    for text in breaking {
      XCTAssertFalse(try Invariant(text).holds(in: state), text)
    }
  }

  func testLengthMeasuresArraysObjectsAndStringsByCharacters() throws {
    XCTAssertTrue(try Invariant("length(/favorites) == 3").holds(in: state))
    XCTAssertTrue(try Invariant("length(/name) == 5").holds(in: state))
    XCTAssertTrue(try Invariant("length(/nested) == 1").holds(in: state))
    XCTAssertFalse(try Invariant("length(/count) == 1").holds(in: state))
    XCTAssertEqual(
      try Invariant("length(/favorites) <= 2").brokenMessage(in: state),
      "check length(/favorites) <= 2 broke: length(/favorites) is 3")
    XCTAssertEqual(
      try Invariant("/count <= 5").brokenMessage(in: state), "check /count <= 5 broke: /count is 6")
    XCTAssertEqual(
      try Invariant("/gone == 1").brokenMessage(in: state),
      "check /gone == 1 broke: /gone is absent")
  }

  func testRefusesWhatDoesNotParse() {
    let cases = [
      ("count <= 5", "is not a JSON pointer"),
      ("/count ~ 5", "the operator is one of == != <= >= < > in"),
      ("/count <= five", "what <= compares with is not JSON"),
      ("/count in 5", "in compares with an array"),
      ("length(/items <= 3", "length( needs its )"),
    ]
    for (text, message) in cases {
      XCTAssertThrowsError(try Invariant(text), text) { error in
        XCTAssertTrue("\(error)".contains(message), "\(error)")
      }
    }
  }
}

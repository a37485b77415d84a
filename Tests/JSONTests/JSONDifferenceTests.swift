@_spi(Hosting) import JSON
import XCTest

final class JSONDifferenceTests: XCTestCase {
  func testEqualValuesHaveNoDifference() {
    let difference = JSONDifference(expected: ["a": [1, 2]], actual: ["a": [1, 2]])
    XCTAssertTrue(difference.isEmpty)
    XCTAssertEqual(difference.lines, [])
  }

  func testAChangedMemberShowsBothSidesAndCountsTheRest() {
    let difference = JSONDifference(
      expected: ["count": 2, "isPrime": true, "name": "x"],
      actual: ["count": 1, "isPrime": true, "name": "x"])
    XCTAssertEqual(
      difference.lines,
      [
        "  {",
        "−   count: 2",
        "+   count: 1",
        "    … (2 unchanged)",
        "  }",
      ])
    XCTAssertEqual(difference.changes, [.init(path: "/count", expected: 2, actual: 1)])
  }

  func testAnInsertionAtTheFrontIsOneAddedElement() {
    let difference = JSONDifference(
      expected: ["favoritePrimes": [3]], actual: ["favoritePrimes": [2, 3]])
    XCTAssertEqual(
      difference.lines,
      [
        "  {",
        "    favoritePrimes: [",
        "+     [0]: 2",
        "      … (1 unchanged)",
        "    ]",
        "  }",
      ])
    XCTAssertEqual(difference.changes, [.init(path: "/favoritePrimes/0", expected: nil, actual: 2)])
  }

  func testADeletionInTheMiddleIsOneRemovedElementAtItsExpectedIndex() {
    let difference = JSONDifference(expected: [1, 2, 3, 4], actual: [1, 3, 4])
    XCTAssertEqual(
      difference.lines,
      [
        "  [",
        "    … (1 unchanged)",
        "−   [1]: 2",
        "    … (2 unchanged)",
        "  ]",
      ])
    XCTAssertEqual(difference.changes, [.init(path: "/1", expected: 2, actual: nil)])
  }

  func testElementsWithIDsAreMatchedByIDAndDiffedInside() {
    let difference = JSONDifference(
      expected: [["id": 1, "title": "a"], ["id": 2, "title": "b"], ["id": 3, "title": "c"]],
      actual: [["id": 3, "title": "c"], ["id": 1, "title": "a"], ["id": 2, "title": "B"]])
    XCTAssertEqual(
      difference.lines,
      [
        "  [",
        #"+   [0]: {"id":3,"title":"c"}"#,
        "    … (1 unchanged)",
        "    [2]: {",
        "      … (1 unchanged)",
        #"−     title: "b""#,
        #"+     title: "B""#,
        "    }",
        #"−   [2]: {"id":3,"title":"c"}"#,
        "  ]",
      ])
    XCTAssertEqual(
      difference.changes,
      [
        .init(path: "/0", expected: nil, actual: ["id": 3, "title": "c"]),
        .init(path: "/2/title", expected: "b", actual: "B"),
        .init(path: "/2", expected: ["id": 3, "title": "c"], actual: nil),
      ])
  }

  func testAddedAndRemovedMembersAndKeysThatNeedQuotes() {
    let difference = JSONDifference(
      expected: ["gone": 1, "a/b": [1]], actual: ["a/b": [1, 2], "new key": nil])
    XCTAssertEqual(
      difference.lines,
      [
        "  {",
        "−   gone: 1",
        #"    "a/b": ["#,
        "      … (1 unchanged)",
        "+     [1]: 2",
        "    ]",
        #"+   "new key": null"#,
        "  }",
      ])
    XCTAssertEqual(
      difference.changes,
      [
        .init(path: "/gone", expected: 1, actual: nil),
        .init(path: "/a~1b/1", expected: nil, actual: 2),
        .init(path: "/new key", expected: nil, actual: .null),
      ])
  }

  func testAValueOfAnotherKindIsReplacedWholeAndLongValuesAreCut() {
    let long = String(repeating: "x", count: 200)
    let difference = JSONDifference(expected: ["value": [1]], actual: ["value": .string(long)])
    XCTAssertEqual(difference.lines[1], "−   value: [1]")
    XCTAssertEqual(
      difference.lines[2],
      "+   value: \"" + String(repeating: "x", count: JSONDifference.maximumShownCharacters - 2)
        + "…")
    XCTAssertEqual(
      difference.changes, [.init(path: "/value", expected: [1], actual: .string(long))])
  }

  /// There is a change exactly when the values differ, and what a change says is there is at
  /// its path in the actual value (indices are the actual array's, but for removed elements).
  func testChangesNameRealPathsForRandomValues() throws {
    var random = RandomJSON(seed: 7)
    for _ in 0..<500 {
      let expected = random.value(depth: 3)
      let actual = random.chance(0.8) ? random.mutated(expected) : random.value(depth: 3)
      let difference = JSONDifference(expected: expected, actual: actual)
      XCTAssertEqual(difference.isEmpty, expected == actual)
      XCTAssertEqual(difference.lines.isEmpty, expected == actual)
      for change in difference.changes {
        let pointer = try JSONPointer(change.path)
        XCTAssertTrue(change.expected != nil || change.actual != nil)
        if let value = change.actual { XCTAssertEqual(actual.value(at: pointer), value) }
      }
    }
  }
}

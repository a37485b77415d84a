import XCTest

@testable import StateCollections

final class TrackedArrayTests: XCTestCase {
  func testItIsAnArray() {
    var array: TrackedArray<Int> = [1, 2, 3]
    array.append(4)
    array.insert(0, at: 0)
    array.remove(at: 2)
    array[1] = 10
    array.append(contentsOf: [5, 6])
    array.removeFirst(2)
    array.removeAll { $0 == 5 }
    XCTAssertEqual(Array(array), [3, 4, 6])
    XCTAssertEqual(array, [3, 4, 6])
    XCTAssertEqual(array.description, "[3, 4, 6]")
    array.removeAll()
    XCTAssertTrue(array.isEmpty)
  }

  /// The three collections step between positions as an array does, also through generic
  /// code, which calls their own position arithmetic.
  func testPositionsStepAsAnArraysDo() {
    struct Row: Identifiable, Equatable {
      let id: Int
    }
    func steps<C: RandomAccessCollection>(_ collection: C) -> [Int] where C.Index == Int {
      [
        collection.count, collection.index(after: 2), collection.index(before: 2),
        collection.index(collection.startIndex, offsetBy: 3), collection.distance(from: 4, to: 1),
        collection.index(collection.endIndex, offsetBy: -2),
      ]
    }
    let values = Array(10..<16)
    let expected = steps(values)
    XCTAssertEqual(steps(TrackedArray(values)), expected)
    XCTAssertEqual(steps(TrackedOrderedSet(values)), expected)
    XCTAssertEqual(steps(IdentifiedArray(uniqueElements: values.map(Row.init))), expected)
    XCTAssertEqual(Array(TrackedOrderedSet(values).reversed()), values.reversed())
    XCTAssertEqual(Array(TrackedArray(values)[2..<4]), [12, 13])
  }

  /// Every kind of change is told, each at the position it was made.
  func testTheChangesSinceAVersionAreTold() {
    var array: TrackedArray<String> = ["a", "b", "c"]
    let start = array.changeToken
    array.append("d")
    array.removeFirst()
    array[1] = "C"
    array.insert("x", at: 1)
    array.replaceSubrange(0..<2, with: ["y"])
    array.removeAll { $0 == "d" }
    let changes = array.changeToken.changes(since: start)!
    XCTAssertEqual(
      changes.map(\.change),
      [
        .inserted(3), .removed(0), .updated(1), .inserted(1), .removed(0), .removed(0),
        .inserted(0), .removed(2),
      ])
    XCTAssertEqual(changes[2].previous as? String, "c")
    XCTAssertEqual(Array(array), ["y", "C"])
  }

  /// Replacing the whole array, or emptying it, starts a history the old token cannot follow.
  func testAWholeNewArrayHasAHistoryOfItsOwn() {
    var array: TrackedArray<Int> = [1]
    let start = array.changeToken
    array = [2]
    XCTAssertNil(array.changeToken.changes(since: start))
    let emptied = array.changeToken
    array.removeAll()
    XCTAssertNil(array.changeToken.changes(since: emptied))
    let empty = array.changeToken
    array.removeAll()
    XCTAssertEqual(array.changeToken, empty, "emptying an empty array changes nothing")
  }

  func testACopyChangedAfterTheOriginalStartsAHistoryOfItsOwn() {
    var original: TrackedArray<Int> = [1]
    let start = original.changeToken
    var copy = original
    original.append(2)
    copy.append(3)
    XCTAssertEqual(original.changeToken.changes(since: start)?.map(\.change), [.inserted(1)])
    XCTAssertNil(copy.changeToken.changes(since: start))
    XCTAssertEqual(Array(copy), [1, 3])
  }
}

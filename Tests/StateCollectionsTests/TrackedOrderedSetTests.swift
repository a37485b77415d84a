import XCTest

@testable import StateCollections

final class TrackedOrderedSetTests: XCTestCase {
  func testValuesAreUniqueFoundAtOnceAndKeptInOrder() {
    var set: TrackedOrderedSet<Int> = [3, 1]
    XCTAssertEqual(set.append(2).index, 2)
    XCTAssertEqual(set.append(1).inserted, false)
    XCTAssertEqual(set.insert(0, at: 0).index, 0)
    XCTAssertEqual(set.insert(2, at: 0).inserted, false)
    XCTAssertEqual(set.elements, [0, 3, 1, 2])
    XCTAssertTrue(set.contains(3))
    XCTAssertFalse(set.contains(9))
    XCTAssertEqual(set.firstIndex(of: 2), 3)
    XCTAssertNil(set.firstIndex(of: 9))
    XCTAssertEqual(set.remove(3), 3)
    XCTAssertNil(set.remove(3))
    XCTAssertEqual(set.firstIndex(of: 2), 2)
    set.move(from: 2, to: 0)
    XCTAssertEqual(set.elements, [2, 0, 1])
    set.append(contentsOf: [1, 7, 7, 8])
    XCTAssertEqual(set.elements, [2, 0, 1, 7, 8])
    set.removeAll { $0 > 6 }
    XCTAssertEqual(Array(set), [2, 0, 1])
    set.sort()
    XCTAssertEqual(set.elements, [0, 1, 2])
    XCTAssertEqual(set.firstIndex(of: 2), 2)
    XCTAssertEqual(set.removeFirst(), 0)
    XCTAssertEqual(set.removeLast(), 2)
    XCTAssertEqual(set.remove(at: 0), 1)
    XCTAssertTrue(set.isEmpty)
    XCTAssertEqual(TrackedOrderedSet([4, 2, 4, 9, 2]).elements, [4, 2, 9], "first ones kept")
    XCTAssertEqual(set.description, "[]")
  }

  /// Membership follows every insert and removal, at either end or in the middle.
  func testMembershipAndPositionsFollowEveryChange() {
    var set = TrackedOrderedSet<Int>()
    var mirror: [Int] = []
    var generator = SystemRandomNumberGenerator()
    for value in 0..<2_000 {
      if !mirror.isEmpty, Bool.random(using: &generator) {
        let removed = mirror.remove(at: Int.random(in: 0..<mirror.count, using: &generator))
        XCTAssertEqual(set.remove(removed), removed)
      } else {
        let position = Int.random(in: 0...mirror.count, using: &generator)
        set.insert(value, at: position)
        mirror.insert(value, at: position)
      }
    }
    XCTAssertEqual(set.elements, mirror)
    for (position, value) in mirror.enumerated() {
      XCTAssertEqual(set.firstIndex(of: value), position)
    }
    XCTAssertFalse(set.contains(-1))
  }

  func testTheChangesSinceAVersionAreTold() {
    var set: TrackedOrderedSet<Int> = [1, 2]
    let start = set.changeToken
    set.append(3)
    set.append(3)
    set.remove(1)
    set.insert(0, at: 1)
    XCTAssertEqual(
      set.changeToken.changes(since: start)?.map(\.change),
      [.inserted(2), .removed(0), .inserted(1)])
    let copy = set
    XCTAssertEqual(copy, set)
    XCTAssertEqual(copy.changeToken, set.changeToken)
  }

  /// Adding a value to a set held elsewhere too (a store's state and the patch writer) does
  /// not copy its elements.
  func testAddingAndRemovingAtTheEndsCopiesNothing() {
    var set = TrackedOrderedSet<Int>()
    set.reserveCapacity(16)
    let address = set.storageAddress
    for value in 0..<8 { set.append(value) }
    set.remove(7)
    XCTAssertEqual(set.storageAddress, address)
    set.removeFirst()
    XCTAssertEqual(set.storageAddress, address.map { $0 + MemoryLayout<Int>.stride })
  }

  func testEqualityIsOfTheValuesInOrder() {
    XCTAssertEqual(TrackedOrderedSet([1, 2]), [1, 2])
    XCTAssertNotEqual(TrackedOrderedSet([1, 2]), [2, 1])
    XCTAssertEqual(Set([TrackedOrderedSet([1, 2]), [1, 2], [2]]).count, 2)
  }
}

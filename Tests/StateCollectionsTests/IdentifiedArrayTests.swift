import XCTest

@testable import StateCollections

private struct Item: Identifiable, Equatable, Encodable {
  var id: Int
  var title = ""
}

final class IdentifiedArrayTests: XCTestCase {
  func testElementsAreFoundByIDAndKeptInOrder() {
    var items: IdentifiedArrayOf<Item> = [Item(id: 3), Item(id: 1)]
    XCTAssertEqual(items.ids, [3, 1])
    XCTAssertEqual(items.append(Item(id: 2)).index, 2)
    XCTAssertEqual(items.append(Item(id: 1, title: "again")).inserted, false)
    XCTAssertEqual(items.insert(Item(id: 0), at: 0).index, 0)
    XCTAssertEqual(items.ids, [0, 3, 1, 2])
    XCTAssertEqual(items.index(id: 2), 3)
    XCTAssertEqual(items[id: 1], Item(id: 1))
    items[id: 1]?.title = "one"
    XCTAssertEqual(items[2], Item(id: 1, title: "one"))
    items[id: 9] = Item(id: 9)
    items[id: 3] = nil
    XCTAssertEqual(items.ids, [0, 1, 2, 9])
    XCTAssertEqual(items.remove(id: 0), Item(id: 0))
    XCTAssertNil(items.remove(id: 0))
    items.move(from: 2, to: 0)
    XCTAssertEqual(items.ids, [9, 1, 2])
    items.removeAll { $0.id == 1 }
    XCTAssertEqual(items.ids, [9, 2])
    XCTAssertEqual(items.map(\.id), [9, 2])
    items.sort { $0.id < $1.id }
    XCTAssertEqual(items.ids, [2, 9])
    XCTAssertEqual(items.index(id: 9), 1)
    items.removeAll()
    XCTAssertTrue(items.isEmpty)
  }

  /// Positions stay right whichever side of a change moves.
  func testPositionsFollowInsertsAndRemovalsAnywhere() {
    var items = IdentifiedArrayOf<Item>()
    var mirror: [Int] = []
    var generator = SystemRandomNumberGenerator()
    for id in 0..<2_000 {
      let position = Int.random(in: 0...mirror.count, using: &generator)
      if !mirror.isEmpty, Bool.random(using: &generator) {
        let removed = Int.random(in: 0..<mirror.count, using: &generator)
        XCTAssertEqual(items.remove(at: removed).id, mirror.remove(at: removed))
      } else {
        items.insert(Item(id: id), at: position)
        mirror.insert(id, at: position)
      }
    }
    XCTAssertEqual(items.ids, mirror)
    for (position, id) in mirror.enumerated() { XCTAssertEqual(items.index(id: id), position) }
  }

  func testEqualityIsOfTheElements() {
    let a: IdentifiedArrayOf<Item> = [Item(id: 1)]
    var b = IdentifiedArrayOf<Item>()
    b.append(Item(id: 1))
    XCTAssertEqual(a, b)
    b[id: 1]?.title = "x"
    XCTAssertNotEqual(a, b)
  }

  /// The journal lists every change since a version, in order.
  func testTheChangesSinceAVersionAreTold() throws {
    var items: IdentifiedArrayOf<Item> = [Item(id: 1), Item(id: 2)]
    let start = items.changeToken
    items.append(Item(id: 3))
    items.removeFirst()
    items[id: 3]?.title = "three"
    items.insert(Item(id: 0), at: 1)
    XCTAssertEqual(
      items.changeToken.changes(since: start)?.map(\.change),
      [.inserted(2), .removed(0), .updated(1), .inserted(1)])
    XCTAssertEqual(items.changeToken.changes(since: items.changeToken)?.count, 0)
    XCTAssertNil(start.changes(since: items.changeToken), "going back is not told")
  }

  /// A copy that changes after another copy of the same version did has a history of its own,
  /// so a reader of the first history reads it whole.
  func testACopyChangedAfterTheOriginalStartsAHistoryOfItsOwn() {
    var original: IdentifiedArrayOf<Item> = [Item(id: 1)]
    let start = original.changeToken
    var copy = original
    original.append(Item(id: 2))
    copy.append(Item(id: 3))
    XCTAssertEqual(original.changeToken.changes(since: start)?.map(\.change), [.inserted(1)])
    XCTAssertNil(copy.changeToken.changes(since: start))
    XCTAssertEqual(copy.ids, [1, 3])
    XCTAssertEqual(original.ids, [1, 2])
  }

  func testOldChangesAreDroppedAndThenNotTold() {
    var items = IdentifiedArrayOf<Item>()
    let start = items.changeToken
    for id in 0..<(2 * ChangeJournal.kept + 1) { items.append(Item(id: id)) }
    XCTAssertNil(items.changeToken.changes(since: start))
    var recent = items.changeToken
    items.removeFirst()
    XCTAssertEqual(items.changeToken.changes(since: recent)?.map(\.change), [.removed(0)])
    recent = items.changeToken
    XCTAssertEqual(items.changeToken.changes(since: recent)?.count, 0)
  }
}

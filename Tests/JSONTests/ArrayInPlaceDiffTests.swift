import ComposableTestSupport
@_spi(Hosting) import JSON
import XCTest

@testable import JSON

/// Equal-length arrays whose elements changed only where they are (a newer order book) are
/// patched element by element without searching an edit script: these compare that shortcut
/// with the search on random books and random arrays.
final class ArrayInPlaceDiffTests: XCTestCase {
  /// A book's levels: prices on a grid, sizes random; the next book changes some sizes, and
  /// sometimes shifts the grid, drops or adds a level, or repeats a level.
  struct RandomBooks {
    var generator: SeededGenerator

    mutating func level(_ price: Int) -> JSONValue {
      let size = Double(Int.random(in: 1...300_000, using: &generator)) / 100_000
      return ["price": .number(Double(price) * 0.5), "size": .number(size)]
    }

    mutating func book() -> [JSONValue] {
      let top = Int.random(in: 100...200, using: &generator)
      return (0..<Int.random(in: 1...45, using: &generator)).map { level(top - $0) }
    }

    mutating func next(after book: [JSONValue]) -> [JSONValue] {
      var next = book
      for index in next.indices where Bool.random(using: &generator) {
        next[index] = level(Int(next[index]["price"]!.doubleValue! * 2))
      }
      switch Int.random(in: 0..<6, using: &generator) {
      case 0 where !next.isEmpty:
        // The grid moves one level: the old levels are one offset further.
        next.removeLast()
        next.insert(level(Int(book[0]["price"]!.doubleValue! * 2) + 1), at: 0)
      case 1 where next.count > 1:
        next[Int.random(in: 1..<next.count, using: &generator)] = next[0]
      case 2 where !next.isEmpty:
        next.remove(at: Int.random(in: 0..<next.count, using: &generator))
      case 3:
        next.append(level(1))
      default:
        break
      }
      return next
    }
  }

  func testBooksPatchExactlyAndAsTheSearchWould() throws {
    var books = RandomBooks(generator: SeededGenerator(seed: 35))
    var shortcuts = 0
    var searches = 0
    for round in 0..<1_000 {
      let old = books.book()
      let new = books.next(after: old)
      let patch = JSONPatch.diff(from: .array(old), to: .array(new))
      XCTAssertEqual(try JSONPatch.apply(patch, to: .array(old)), .array(new), "round \(round)")
      let comparison = ArrayComparison(old, new)
      let oldMiddle = comparison.oldMiddle
      let newMiddle = comparison.newMiddle
      guard !oldMiddle.isEmpty, !newMiddle.isEmpty else { continue }
      if ArrayComparison.matchOnlyInPlace(oldMiddle, newMiddle) {
        shortcuts += 1
        try checkShortcut(old, new, oldMiddle, newMiddle, patch, "round \(round)")
      } else {
        searches += 1
      }
    }
    // Both paths are exercised.
    XCTAssertGreaterThan(shortcuts, 250)
    XCTAssertGreaterThan(searches, 250)
  }

  func testRandomArraysPatchExactlyAndAsTheSearchWould() throws {
    var random = RandomJSON(seed: 3_500)
    var shortcuts = 0
    for round in 0..<1_500 {
      let count = random.int(in: 1...50)
      let old = (0..<count).map { _ in random.value(depth: 2) }
      var new = old
      for index in new.indices where random.chance(0.5) {
        new[index] = random.chance(0.5) ? random.mutated(new[index]) : random.value(depth: 2)
      }
      if random.chance(0.2), count > 1 {
        new.swapAt(0, count - 1)
      }
      let patch = JSONPatch.diff(from: .array(old), to: .array(new))
      XCTAssertEqual(try JSONPatch.apply(patch, to: .array(old)), .array(new), "round \(round)")
      let comparison = ArrayComparison(old, new)
      guard !comparison.oldMiddle.isEmpty,
        ArrayComparison.matchOnlyInPlace(comparison.oldMiddle, comparison.newMiddle)
      else { continue }
      shortcuts += 1
      try checkShortcut(
        old, new, comparison.oldMiddle, comparison.newMiddle, patch, "round \(round)")
    }
    // Random scalars repeat (null, true, small numbers) and are left to the search: a
    // sixth or so of the arrays take the shortcut.
    XCTAssertGreaterThan(shortcuts, 150)
  }

  /// The shortcut is taken only where no element equals one of the other array at another
  /// offset; its patch is each changed element's own patch, in order; and the edit script the
  /// search finds pairs the elements the same way.
  private func checkShortcut(
    _ old: [JSONValue], _ new: [JSONValue], _ oldMiddle: ArraySlice<JSONValue>,
    _ newMiddle: ArraySlice<JSONValue>, _ patch: [JSONPatchOperation], _ message: String
  ) throws {
    for oldIndex in oldMiddle.indices {
      for newIndex in newMiddle.indices where newIndex != oldIndex {
        XCTAssertNotEqual(oldMiddle[oldIndex], newMiddle[newIndex], message)
      }
    }
    var expected: [JSONPatchOperation] = []
    for index in old.indices where old[index] != new[index] {
      JSONPatch.diff(from: old[index], to: new[index], at: "/\(index)", into: &expected)
    }
    XCTAssertEqual(patch, expected, message)
    guard let script = EditScript(oldMiddle, newMiddle) else { return }
    var offset = 0
    for run in script.runs {
      XCTAssertEqual(run.deleted, run.inserted, message)
      offset += run.deleted
      for kept in offset..<offset + run.kept {
        XCTAssertEqual(
          oldMiddle[oldMiddle.startIndex + kept], newMiddle[newMiddle.startIndex + kept], message)
      }
      offset += run.kept
    }
  }

  func testEqualValuesHaveEqualFingerprints() {
    XCTAssertEqual(JSONValue.int(3).fingerprint, JSONValue.number(3).fingerprint)
    XCTAssertEqual(JSONValue.number(0).fingerprint, JSONValue.number(-0.0).fingerprint)
    let forward: JSONValue = ["a": 1, "b": ["x", 2.5, nil, true]]
    let backward: JSONValue = ["b": ["x", 2.5, nil, true], "a": 1.0]
    XCTAssertEqual(forward, backward)
    XCTAssertEqual(forward.fingerprint, backward.fingerprint)
    var random = RandomJSON(seed: 7)
    for _ in 0..<2_000 {
      let value = random.value()
      let other = random.chance(0.5) ? value : random.mutated(value)
      if value == other {
        XCTAssertEqual(value.fingerprint, other.fingerprint, "\(value)")
      }
    }
  }

  /// Arrays that differ by a shift are still found by the search: the shortcut is not taken.
  func testAShiftedBookIsStillARemoveAndAnAdd() {
    let old: [JSONValue] = (0..<40).map { ["price": .int(100 - $0), "size": 1] }
    let new = [["price": 101, "size": 1]] + old.dropLast()
    XCTAssertFalse(ArrayComparison.matchOnlyInPlace(old[...], new[...]))
    XCTAssertEqual(
      JSONPatch.diff(from: .array(old), to: .array(new)),
      [.add(path: "/0", value: ["price": 101, "size": 1]), .remove(path: "/40")])
  }
}

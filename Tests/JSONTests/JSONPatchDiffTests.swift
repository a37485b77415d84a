import ComposableTestSupport
@_spi(Hosting) import JSON
import XCTest

@testable import JSON

final class JSONPatchDiffTests: XCTestCase {
  let state: JSONValue = [
    "count": 7, "favoritePrimes": [2, 3, 5], "alertNthPrime": nil, "isLoading": false,
    "user": ["name": "ada", "roles": ["admin"]],
    "items": [["id": 1, "title": "a"], ["id": 2, "title": "b"]],
    "ratio": 0.5, "title": "Counter", "a/b": 1, "m~n": 2,
  ]

  func testIdenticalValuesGiveNoOperations() {
    XCTAssertEqual(JSONPatch.diff(from: state, to: state), [])
    XCTAssertEqual(JSONPatch.diff(from: ["n": 1], to: ["n": 1.0]), [])
    XCTAssertEqual(JSONPatch.diff(from: ["a": 1, "b": 2], to: ["b": 2, "a": 1]), [])
  }

  func testChangedLeafIsOneReplace() {
    assertDiff(changing: "count", to: 8, [.replace(path: "/count", value: 8)])
    assertDiff(changing: "alertNthPrime", to: 17, [.replace(path: "/alertNthPrime", value: 17)])
    assertDiff(changing: "title", to: nil, [.replace(path: "/title", value: nil)])
    assertDiff(changing: "a/b", to: 2, [.replace(path: "/a~1b", value: 2)])
    assertDiff(changing: "m~n", to: 3, [.replace(path: "/m~0n", value: 3)])
    var nested = state
    nested = mutate(nested, "user") { $0 = ["name": "bob", "roles": ["admin"]] }
    XCTAssertEqual(
      JSONPatch.diff(from: state, to: nested), [.replace(path: "/user/name", value: "bob")])
  }

  func testChangedTypeIsOneReplace() {
    assertDiff(
      changing: "favoritePrimes", to: ["2": 2], [.replace(path: "/favoritePrimes", value: ["2": 2])]
    )
    assertDiff(changing: "user", to: "nobody", [.replace(path: "/user", value: "nobody")])
    XCTAssertEqual(JSONPatch.diff(from: [1], to: ["1": 1]), [.replace(path: "", value: ["1": 1])])
    XCTAssertEqual(JSONPatch.diff(from: 1, to: 2), [.replace(path: "", value: 2)])
  }

  func testDiffAtAPointerPrefixesItsPathsAndAppends() {
    var operations: [JSONPatchOperation] = [.remove(path: "/kept")]
    JSONPatch.diff(
      from: ["n": 1, "gone": true], to: ["n": 2, "new": []], at: "/a~1b", into: &operations)
    XCTAssertEqual(
      operations,
      [
        .remove(path: "/kept"), .replace(path: "/a~1b/n", value: 2), .remove(path: "/a~1b/gone"),
        .add(path: "/a~1b/new", value: []),
      ])
  }

  func testObjectKeys() {
    var added = state.objectValue!
    added["new"] = ["x": 1]
    XCTAssertEqual(
      JSONPatch.diff(from: state, to: .object(added)), [.add(path: "/new", value: ["x": 1])])
    var removed = state.objectValue!
    removed["user"] = nil
    XCTAssertEqual(JSONPatch.diff(from: state, to: .object(removed)), [.remove(path: "/user")])
  }

  func testArrays() {
    assertDiff(
      changing: "favoritePrimes", to: [2, 3, 5, 7], [.add(path: "/favoritePrimes/3", value: 7)])
    assertDiff(changing: "favoritePrimes", to: [3, 5], [.remove(path: "/favoritePrimes/0")])
    assertDiff(changing: "favoritePrimes", to: [2, 5], [.remove(path: "/favoritePrimes/1")])
    assertDiff(changing: "favoritePrimes", to: [2, 3], [.remove(path: "/favoritePrimes/2")])
    assertDiff(
      changing: "favoritePrimes", to: [1, 2, 3, 5], [.add(path: "/favoritePrimes/0", value: 1)])
    assertDiff(
      changing: "favoritePrimes", to: [2, 3, 4, 5], [.add(path: "/favoritePrimes/2", value: 4)])
    assertDiff(
      changing: "favoritePrimes", to: [2, 13, 5], [.replace(path: "/favoritePrimes/1", value: 13)])
    assertDiff(
      changing: "favoritePrimes", to: [],
      [
        .remove(path: "/favoritePrimes/2"), .remove(path: "/favoritePrimes/1"),
        .remove(path: "/favoritePrimes/0"),
      ])
    assertDiff(
      changing: "items", to: [["id": 1, "title": "a"], ["id": 2, "title": "B"]],
      [.replace(path: "/items/1/title", value: "B")])
    // Two elements with the same value: removing either is the same one operation.
    XCTAssertEqual(JSONPatch.diff(from: [1, 1, 1], to: [1, 1]), [.remove(path: "/2")])
  }

  func testTenFieldObjectWithOneChangeIsOneOperation() {
    let fields = (0..<10).map { ("field\($0)", JSONValue.int($0)) }
    let old = JSONValue.object(JSONObject(fields))
    var changed = fields
    changed[6].1 = "six"
    XCTAssertEqual(
      JSONPatch.diff(from: old, to: .object(JSONObject(changed))),
      [.replace(path: "/field6", value: "six")])
  }

  func testPatchesApply() throws {
    let pairs: [(JSONValue, JSONValue)] = [
      ([1, 2, 3, 4, 5], [9, 2, 4, 8]),
      ([1, 2, 3], [3, 2, 1]),
      ([], [1, [2], ["3": 3]]),
      (["a": [1, 2, 3]], ["a": [0, 1, 2, 3, 4], "b": nil]),
      (["a": ["b": ["c": [1, ["d": 2]]]]], ["a": ["b": ["c": [1, ["d": 3, "e": 4]]]]]),
    ]
    for (old, new) in pairs {
      XCTAssertEqual(
        try JSONPatch.apply(JSONPatch.diff(from: old, to: new), to: old), new, "\(old) -> \(new)")
    }
  }

  private func mutate(_ value: JSONValue, _ key: String, _ body: (inout JSONValue) -> Void)
    -> JSONValue
  {
    var object = value.objectValue!
    var member = object[key]!
    body(&member)
    object[key] = member
    return .object(object)
  }

  private func assertDiff(
    changing key: String, to newValue: JSONValue, _ expected: [JSONPatchOperation],
    file: StaticString = #filePath, line: UInt = #line
  ) {
    let new = mutate(state, key) { $0 = newValue }
    let patch = JSONPatch.diff(from: state, to: new)
    XCTAssertEqual(patch, expected, file: file, line: line)
    XCTAssertEqual(try JSONPatch.apply(patch, to: state), new, file: file, line: line)
  }
}

final class JSONPatchPropertyTests: XCTestCase {
  func testDiffAlwaysAppliesToTheTarget() throws {
    var random = RandomJSON(seed: 42)
    for iteration in 0..<800 {
      let old = random.value(depth: 5)
      let new = iteration % 4 == 0 ? random.value(depth: 5) : random.mutated(old)
      let patch = JSONPatch.diff(from: old, to: new)
      let patched = try JSONPatch.apply(patch, to: old)
      XCTAssertEqual(
        patched, new, "case \(iteration): \(old) -> \(new) with \(patch.map(\.jsonValue))")
      // Equal values, however built, give an empty patch.
      XCTAssertEqual(JSONPatch.diff(from: new, to: patched), [], "case \(iteration)")
      // The patch survives a trip through its own JSON form.
      let reread = try JSONParser.parse(JSONValue.array(patch.map(\.jsonValue)).jsonString)
        .arrayValue!
      XCTAssertEqual(try reread.map(JSONPatchOperation.init(json:)), patch)
    }
  }
}

/// Arrays whose elements moved, were inserted or removed in the middle, or rotated: the patch
/// is as small as the change.
final class JSONPatchArrayDiffTests: XCTestCase {
  func testDroppingTheFirstOfAFullListAndAppendingIsTwoOperations() {
    let old = JSONValue.array((0..<1_000).map { .string("message \($0)") })
    let new = JSONValue.array((1..<1_001).map { .string("message \($0)") })
    XCTAssertEqual(
      JSONPatch.diff(from: old, to: new),
      [.remove(path: "/0"), .add(path: "/999", value: "message 1000")])
  }

  func testAnInsertInTheMiddleIsOneAdd() {
    XCTAssertEqual(
      JSONPatch.diff(from: [1, 2, 3, 4, 5, 6], to: [1, 2, 3, 9, 4, 5, 6]),
      [.add(path: "/3", value: 9)])
  }

  func testARotationIsARemoveAndAnAdd() {
    XCTAssertEqual(
      JSONPatch.diff(from: ["a", "b", "c", "d", "e"], to: ["b", "c", "d", "e", "a"]),
      [.remove(path: "/0"), .add(path: "/4", value: "a")])
  }

  func testAChangedElementBetweenEditsIsDiffedInPlace() {
    XCTAssertEqual(
      JSONPatch.diff(
        from: [["n": 1], ["n": 2], ["n": 3], ["n": 4]],
        to: [["n": 2], ["n": 30], ["n": 4], ["n": 5]]),
      [
        .remove(path: "/0"), .replace(path: "/1/n", value: 30), .add(path: "/3", value: ["n": 5]),
      ])
  }

  func testIdentifiedElementsAreMatchedByID() {
    let a: JSONValue = ["id": 1, "title": "a", "done": false]
    let b: JSONValue = ["id": 2, "title": "b", "done": false]
    let c: JSONValue = ["id": "c", "title": "c", "done": false]
    let x: JSONValue = ["id": 9, "title": "x", "done": false]
    let doneB: JSONValue = ["id": 2, "title": "b", "done": true]
    // b is toggled, x inserted before it, c moved to the front.
    XCTAssertEqual(
      JSONPatch.diff(from: [a, b, c], to: [c, a, x, doneB]),
      [
        .remove(path: "/2"), .add(path: "/0", value: c), .add(path: "/2", value: x),
        .replace(path: "/3/done", value: true),
      ])
  }

  func testRepeatedIDsAreNotIdentities() throws {
    let old: JSONValue = [["id": 1, "v": 1], ["id": 1, "v": 2]]
    let new: JSONValue = [["id": 1, "v": 2], ["id": 1, "v": 3]]
    XCTAssertEqual(try JSONPatch.apply(JSONPatch.diff(from: old, to: new), to: old), new)
  }

  func testLongestIncreasingSubsequence() {
    XCTAssertEqual(longestIncreasingSubsequence([]), [])
    XCTAssertEqual(longestIncreasingSubsequence([3, 1, 2]), [1, 2])
    XCTAssertEqual(longestIncreasingSubsequence([0, 8, 4, 12, 2, 10, 6, 14, 1, 9]).count, 4)
    XCTAssertEqual(longestIncreasingSubsequence([5, 4, 3]).count, 1)
  }

  /// Random arrays edited by inserts, deletes, moves, rotations and in-place changes, with and
  /// without ids: every patch turns the old array into the new one, and a few edits take few
  /// operations.
  func testRandomArrayEditsPatchExactly() throws {
    var random = SeededGenerator(seed: 5)
    for round in 0..<1_500 {
      let identified = round % 2 == 0
      var nextID = 0
      func element() -> JSONValue {
        nextID += 1
        let value = JSONValue.int(Int.random(in: 0..<4, using: &random))
        return identified ? ["id": .int(nextID), "v": value] : value
      }
      let old = (0..<Int.random(in: 0..<40, using: &random)).map { _ in element() }
      var new = old
      let edits = Int.random(in: 1...3, using: &random)
      for _ in 0..<edits {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: new.insert(element(), at: Int.random(in: 0...new.count, using: &random))
        case 1 where !new.isEmpty: new.remove(at: Int.random(in: 0..<new.count, using: &random))
        case 2 where !new.isEmpty:
          let moved = new.remove(at: Int.random(in: 0..<new.count, using: &random))
          new.insert(moved, at: Int.random(in: 0...new.count, using: &random))
        case 3 where !new.isEmpty:
          let by = Int.random(in: 0..<new.count, using: &random)
          new = Array(new[by...] + new[..<by])
        default:
          if !new.isEmpty, identified {
            let index = Int.random(in: 0..<new.count, using: &random)
            new[index] = ["id": new[index]["id"]!, "v": "changed"]
          }
        }
      }
      let patch = JSONPatch.diff(from: .array(old), to: .array(new))
      XCTAssertEqual(try JSONPatch.apply(patch, to: .array(old)), .array(new), "round \(round)")
      if identified {
        // Each edit but a rotation costs at most two operations (a move is a remove and an add).
        XCTAssertLessThanOrEqual(patch.count, max(2 * edits, 2 * old.count), "round \(round)")
      }
    }
  }
}

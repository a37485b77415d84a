import ComposableTestSupport
@_spi(Hosting) import JSON
import XCTest

@testable import JSON
@testable import StateCollections

private struct Todo: Identifiable, Equatable, Codable {
  var id: Int
  var title: String
  var done = false
}

private struct Board: Encodable {
  struct Column: Encodable {
    var name = "inbox"
    var todos: IdentifiedArrayOf<Todo> = []
  }

  var column = Column()
  var filter = ""
  var tags: TrackedOrderedSet<Int> = []
}

/// Writes one member, `value`, of whichever type its case holds.
private enum Shifting: Encodable {
  case tracked(TrackedArray<Int>)
  case plain([Int])
  case text(String)

  enum CodingKeys: CodingKey { case value }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .tracked(let values): try container.encode(values, forKey: .value)
    case .plain(let values): try container.encode(values, forKey: .value)
    case .text(let text): try container.encode(text, forKey: .value)
    }
  }
}

/// An ``IdentifiedArray`` member is patched from the changes it reports: one operation per
/// change (a changed field of an element is that field), whatever it holds, and without
/// copying its elements.
final class TrackedCollectionPatchTests: XCTestCase {
  func testEachChangeIsOneOperation() throws {
    var board = Board()
    for id in 0..<1_000 { board.column.todos.append(Todo(id: id, title: "t\(id)")) }
    let encoder = try JSONPatchEncoder(board)
    board.column.todos.removeFirst()
    board.column.todos.append(Todo(id: 1_000, title: "new"))
    board.column.todos[id: 5]?.done = true
    XCTAssertEqual(
      try patch(encoder, board),
      #"[{"op":"remove","path":"/column/todos/0"},"#
        + #"{"op":"add","path":"/column/todos/999","value":{"id":1000,"title":"new","done":false}},"#
        + #"{"op":"replace","path":"/column/todos/4/done","value":true}]"#)
    board.filter = "t"
    XCTAssertEqual(try patch(encoder, board), #"[{"op":"replace","path":"/filter","value":"t"}]"#)
  }

  /// Assigning a collection equal to the one the reader has writes nothing, whichever of the
  /// three it is, as assigning an equal plain array does.
  func testAssigningAnEqualCollectionWritesNothing() throws {
    var board = Board()
    let encoder = try JSONPatchEncoder(board)
    board.column.todos = []
    board.tags = []
    XCTAssertEqual(try patch(encoder, board), "[]")
    let todos = (0..<1_000).map { Todo(id: $0, title: "t\($0)") }
    board.column.todos = IdentifiedArray(uniqueElements: todos)
    board.tags = TrackedOrderedSet(0..<1_000)
    _ = try patch(encoder, board)
    board.column.todos = IdentifiedArray(uniqueElements: todos)
    board.tags = TrackedOrderedSet(0..<1_000)
    XCTAssertEqual(try patch(encoder, board), "[]")

    var log = Shifting.tracked([1, 2])
    let logEncoder = try JSONPatchEncoder(log)
    log = .tracked([1, 2])
    var bytes: [UInt8] = []
    try logEncoder.writePatch(to: log, into: &bytes)
    XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "[]")
  }

  /// A collection assigned over the one last written whole is patched as its encoding differs
  /// from that one's: a list refilled with mostly the same elements is the few that changed.
  func testAReassignedCollectionIsPatchedAsItsEncodingChanged() throws {
    var board = Board()
    board.column.todos = IdentifiedArray(
      uniqueElements: (0..<1_000).map { Todo(id: $0, title: "t") })
    let encoder = try JSONPatchEncoder(board)
    var refilled = board.column.todos.elements
    refilled.remove(at: 10)
    refilled[500].done = true
    refilled.append(Todo(id: 1_000, title: "new"))
    let before = try JSONValueEncoder().encode(board)
    board.column.todos = IdentifiedArray(uniqueElements: refilled)
    let after = try JSONValueEncoder().encode(board)
    XCTAssertEqual(try patch(encoder, board), Self.text(JSONPatch.diff(from: before, to: after)))
    XCTAssertEqual(try patch(encoder, board), "[]")
  }

  /// Filling an empty collection, emptying a full one or replacing every element is one
  /// `replace`, shorter than an operation per element.
  func testAWholeNewCollectionIsOneReplace() throws {
    var board = Board()
    let encoder = try JSONPatchEncoder(board)
    board.column.todos = [Todo(id: 1, title: "a"), Todo(id: 2, title: "b")]
    XCTAssertEqual(
      try patch(encoder, board),
      #"[{"op":"replace","path":"/column/todos","value":["#
        + #"{"id":1,"title":"a","done":false},{"id":2,"title":"b","done":false}]}]"#)
    board.column.todos = [Todo(id: 3, title: "c"), Todo(id: 4, title: "d")]
    XCTAssertEqual(
      try patch(encoder, board),
      #"[{"op":"replace","path":"/column/todos","value":["#
        + #"{"id":3,"title":"c","done":false},{"id":4,"title":"d","done":false}]}]"#)
    board.column.todos = []
    XCTAssertEqual(
      try patch(encoder, board), #"[{"op":"replace","path":"/column/todos","value":[]}]"#)
  }

  /// One element put in an empty collection is its `add`, no longer than the whole written
  /// again; two or more are the `replace`, written without an `add` for each first.
  func testOneElementIntoAnEmptyCollectionIsItsAdd() throws {
    var board = Board()
    let encoder = try JSONPatchEncoder(board)
    board.tags = [7]
    XCTAssertEqual(try patch(encoder, board), #"[{"op":"add","path":"/tags/0","value":7}]"#)
    board.tags = []
    XCTAssertEqual(try patch(encoder, board), #"[{"op":"remove","path":"/tags/0"}]"#)
    board.tags = TrackedOrderedSet(0..<100_000)
    let filled = try patch(encoder, board)
    XCTAssertTrue(filled.hasPrefix(#"[{"op":"replace","path":"/tags","value":[0,1,2,"#))
    XCTAssertEqual(filled.count(where: { $0 == "{" }), 1)
  }

  /// The reader's JSON is followed through every change of a short collection, at the end,
  /// in the middle and in place, so a collection assigned after them is still diffed: an
  /// equal one writes nothing.
  func testACollectionAssignedAfterChangesInPlaceIsDiffedWhileItsJSONIsFollowed() throws {
    var board = Board()
    board.tags = [1, 2, 3]
    board.column.todos = [Todo(id: 1, title: "a"), Todo(id: 2, title: "b")]
    let encoder = try JSONPatchEncoder(board)
    board.tags.append(4)
    board.column.todos.append(Todo(id: 3, title: "c"))
    board.column.todos[id: 1]?.done = true
    board.column.todos.removeLast()
    _ = try patch(encoder, board)
    board.tags = [1, 2, 3, 4]
    board.column.todos = [Todo(id: 1, title: "a", done: true), Todo(id: 2, title: "b")]
    XCTAssertEqual(try patch(encoder, board), "[]")

    board.tags.remove(1)
    XCTAssertEqual(try patch(encoder, board), #"[{"op":"remove","path":"/tags/0"}]"#)
    board.tags = [2, 3, 4]
    XCTAssertEqual(try patch(encoder, board), "[]")
    _ = board.tags.insert(9, at: 1)
    XCTAssertEqual(try patch(encoder, board), #"[{"op":"add","path":"/tags/1","value":9}]"#)
    board.tags = [2, 9, 3, 5]
    XCTAssertEqual(try patch(encoder, board), #"[{"op":"replace","path":"/tags/3","value":5}]"#)
  }

  /// A long list is not followed: its JSON beside its elements would double its memory.
  func testALongCollectionChangedInPlaceIsWrittenWholeWhenAssigned() throws {
    var board = Board()
    let count = PatchWalk.maxFollowedCount
    board.tags = TrackedOrderedSet(0..<count)
    let encoder = try JSONPatchEncoder(board)
    board.tags.append(count)
    _ = try patch(encoder, board)
    board.tags = TrackedOrderedSet(0...count)
    XCTAssertTrue(try patch(encoder, board).hasPrefix(#"[{"op":"replace","path":"/tags","#))
  }

  /// The encoder keeps no copy of a tracked collection, nor of the structs holding one: a copy
  /// would make the reducer's next change copy every element.
  func testPatchingKeepsNoCopyOfTheElements() throws {
    struct Notes: Encodable {
      struct Inner: Encodable { var todos: IdentifiedArrayOf<Todo> = [] }
      var inner = Inner()
      var messages: TrackedArray<String> = []
    }
    var notes = Notes()
    notes.inner.todos.reserveCapacity(16)
    notes.messages.reserveCapacity(16)
    let encoder = try JSONPatchEncoder(notes)
    var bytes: [UInt8] = []
    for id in 0..<4 {
      let (todos, messages) = (notes.inner.todos.storageAddress, notes.messages.storageAddress)
      notes.inner.todos.append(Todo(id: id, title: "t"))
      notes.messages.append("m")
      XCTAssertEqual(notes.inner.todos.storageAddress, todos, "append \(id)")
      XCTAssertEqual(notes.messages.storageAddress, messages, "append \(id)")
      try encoder.writePatch(to: notes, into: &bytes)
    }
  }

  /// Random edits of every kind: each patch turns the last encoding into the new one.
  func testRandomEditsPatchExactly() throws {
    var random = SeededGenerator(seed: 3)
    var board = Board()
    var nextID = 0
    let encoder = try JSONPatchEncoder(board)
    for step in 0..<2_000 {
      let before = try JSONValueEncoder().encode(board)
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        let todos = board.column.todos
        switch Int.random(in: 0..<11, using: &random) {
        case 0, 1:
          nextID += 1
          board.column.todos.insert(
            Todo(id: nextID, title: "t"), at: Int.random(in: 0...todos.count, using: &random))
        case 2 where !todos.isEmpty:
          board.column.todos.remove(at: Int.random(in: 0..<todos.count, using: &random))
        case 3 where !todos.isEmpty:
          board.column.todos[Int.random(in: 0..<todos.count, using: &random)].done.toggle()
        case 4 where !todos.isEmpty:
          board.column.todos.move(
            from: Int.random(in: 0..<todos.count, using: &random),
            to: Int.random(in: 0..<todos.count, using: &random))
        case 5 where todos.count > 1:
          board.column.todos.removeFirst()
        case 6:
          board.filter = String(Int.random(in: 0..<3, using: &random))
        case 7 where step % 50 == 0:
          board.column.todos.sort { $0.id > $1.id }
        case 7 where step % 10 == 0:
          // Refilled with the same elements but one: another history, diffed.
          var elements = todos.elements
          if !elements.isEmpty {
            elements.remove(at: Int.random(in: 0..<elements.count, using: &random))
          }
          board.column.todos = IdentifiedArray(uniqueElements: elements)
        case 8:
          let tag = Int.random(in: 0..<20, using: &random)
          if board.tags.remove(tag) == nil {
            board.tags.insert(tag, at: Int.random(in: 0...board.tags.count, using: &random))
          }
        case 9 where board.tags.count > 1:
          board.tags.move(
            from: Int.random(in: 0..<board.tags.count, using: &random),
            to: Int.random(in: 0..<board.tags.count, using: &random))
        default:
          board.column.name = Bool.random(using: &random) ? "inbox" : "done"
        }
      }
      let text = try patch(encoder, board)
      let operations = try JSONParser.parse(Array(text.utf8)).arrayValue!.map {
        try JSONPatchOperation(json: $0)
      }
      XCTAssertEqual(
        try JSONPatch.apply(operations, to: before), try JSONValueEncoder().encode(board),
        "step \(step): \(text)")
    }
  }

  /// A value added to or removed from an ordered set is one operation, found without searching.
  func testAnOrderedSetIsPatchedFromItsChanges() throws {
    var board = Board()
    board.tags = TrackedOrderedSet(0..<1_000)
    let encoder = try JSONPatchEncoder(board)
    board.tags.append(5)
    board.tags.append(1_000)
    board.tags.remove(500)
    board.tags.insert(-1, at: 0)
    XCTAssertEqual(
      try patch(encoder, board),
      #"[{"op":"add","path":"/tags/1000","value":1000},"#
        + #"{"op":"remove","path":"/tags/500"},{"op":"add","path":"/tags/0","value":-1}]"#)
  }

  func testItEncodesAsAnArrayAndRefusesRepeatedIDs() throws {
    let todos: IdentifiedArrayOf<Todo> = [Todo(id: 1, title: "a"), Todo(id: 2, title: "b")]
    let json = try JSONValueEncoder().encode(todos)
    XCTAssertEqual(
      json, [["id": 1, "title": "a", "done": false], ["id": 2, "title": "b", "done": false]])
    XCTAssertEqual(try JSONValueDecoder().decode(IdentifiedArrayOf<Todo>.self, from: json), todos)
    XCTAssertThrowsError(
      try JSONValueDecoder().decode(
        IdentifiedArrayOf<Todo>.self,
        from: [["id": 1, "title": "a", "done": false], ["id": 1, "title": "b", "done": false]]))
  }

  func testAnOrderedSetEncodesAsAnArrayAndRefusesRepeatedValues() throws {
    let set: TrackedOrderedSet<Int> = [5, 3]
    XCTAssertEqual(try JSONValueEncoder().encode(set), [5, 3])
    XCTAssertEqual(try JSONValueDecoder().decode(TrackedOrderedSet<Int>.self, from: [5, 3]), set)
    XCTAssertThrowsError(
      try JSONValueDecoder().decode(TrackedOrderedSet<Int>.self, from: [5, 3, 5])
    ) { error in
      XCTAssertTrue("\(error)".contains("the element 5 is repeated"), "\(error)")
    }
  }

  /// How a member is patched is found once per type at its key: a member whose type changes
  /// between two states is patched as what it is now.
  func testAMemberWhoseTypeChangesIsPatchedAsItsNewType() throws {
    var tracked: TrackedArray<Int> = [1, 2]
    let values: [Shifting] = [
      .tracked(tracked), .plain([1, 2, 3]), .text("a"), .plain([1]),
      .tracked(
        {
          tracked.append(3)
          return tracked
        }()),
      .tracked(
        {
          tracked[0] = 9
          return tracked
        }()),
      .text("b"), .tracked(tracked),
    ]
    let encoder = try JSONPatchEncoder(Shifting.text("start"))
    var before = try JSONValueEncoder().encode(Shifting.text("start"))
    for (step, value) in values.enumerated() {
      var bytes: [UInt8] = []
      try encoder.writePatch(to: value, into: &bytes)
      let operations = try (bytes.withUnsafeBytes { try JSONParser.parse($0) }.arrayValue ?? [])
        .map { try JSONPatchOperation(json: $0) }
      let after = try JSONValueEncoder().encode(value)
      XCTAssertEqual(try JSONPatch.apply(operations, to: before), after, "step \(step)")
      before = after
    }
  }

  private static func text(_ operations: [JSONPatchOperation]) -> String {
    var bytes = Array("[".utf8)
    for (index, operation) in operations.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      operation.write(into: &bytes)
    }
    bytes.append(UInt8(ascii: "]"))
    return String(decoding: bytes, as: UTF8.self)
  }

  private func patch(_ encoder: JSONPatchEncoder<Board>, _ board: Board) throws -> String {
    var bytes: [UInt8] = []
    try encoder.writePatch(to: board, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}

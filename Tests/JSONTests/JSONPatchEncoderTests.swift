import ComposableTestSupport
@_spi(Hosting) import JSON
import XCTest

/// ``JSONPatchEncoder`` must write patches that turn each value's encoding into the next one's,
/// while encoding only what changed.
final class JSONPatchEncoderTests: XCTestCase {
  func testAnUnchangedValueGivesAnEmptyPatch() throws {
    let value = Screen()
    XCTAssertEqual(try patches(from: value, to: [value]), ["[]"])
  }

  func testAChangedScalarIsOneReplaceAtItsPath() throws {
    var next = Screen()
    next.title = "b"
    next.settings.volume = 3
    XCTAssertEqual(
      try patches(from: Screen(), to: [next]),
      [
        #"[{"op":"replace","path":"/title","value":"b"},"#
          + #"{"op":"replace","path":"/settings/volume","value":3}]"#
      ])
  }

  func testAnOptionalStructIsAddedWholeThenPatchedByMember() throws {
    var shown = Screen()
    shown.alert = Alert(message: "x", code: 1)
    var edited = shown
    edited.alert?.code = 2
    XCTAssertEqual(
      try patches(from: Screen(), to: [shown, edited, Screen()]),
      [
        #"[{"op":"replace","path":"/alert","value":{"message":"x","code":1}}]"#,
        #"[{"op":"replace","path":"/alert/code","value":2}]"#,
        #"[{"op":"replace","path":"/alert","value":null}]"#,
      ])
  }

  func testAMemberThatComesAndGoesIsAddedAndRemoved() throws {
    XCTAssertEqual(
      try patches(
        from: Sometimes(extra: nil), to: [Sometimes(extra: 1), Sometimes(extra: 2), Sometimes()]),
      [
        #"[{"op":"add","path":"/extra","value":1}]"#,
        #"[{"op":"replace","path":"/extra","value":2}]"#,
        #"[{"op":"remove","path":"/extra"}]"#,
      ])
  }

  func testADictionaryIsPatchedByEntry() throws {
    var next = Screen()
    next.scores["b/c"] = 2
    XCTAssertEqual(
      try patches(from: Screen(), to: [next]), [#"[{"op":"add","path":"/scores/b~1c","value":2}]"#])
  }

  /// An enum with payloads encodes as an object keyed by its case, as `JSONEncoder` writes it.
  func testAnEnumThatChangesCaseSwapsItsKey() throws {
    var next = Screen()
    next.mode = .editing(line: 4)
    var back = next
    back.mode = .idle
    XCTAssertEqual(
      try patches(from: Screen(), to: [next, back]),
      [
        #"[{"op":"add","path":"/mode/editing","value":{"line":4}},"#
          + #"{"op":"remove","path":"/mode/idle"}]"#,
        #"[{"op":"add","path":"/mode/idle","value":{}},{"op":"remove","path":"/mode/editing"}]"#,
      ])
  }

  func testNestedContainersAndSuperEncodersArePatched() throws {
    XCTAssertEqual(
      try patches(from: Nested(a: 1, b: [1]), to: [Nested(a: 2, b: [1, 2])]),
      [
        #"[{"op":"replace","path":"/inner/a","value":2},"#
          + #"{"op":"add","path":"/list/1","value":2},"#
          + #"{"op":"replace","path":"/super/b","value":2}]"#
      ])
  }

  /// The point of the encoder: a member with the same bits as before is not encoded again.
  func testAnUnchangedMemberIsNotEncodedAgain() throws {
    let encodings = LockedBox(0)
    let first = Tracked(big: Counted(values: Array(0..<1_000), encodings: encodings), small: 0)
    let encoder = try JSONPatchEncoder(first)
    let encodedFirst = encodings.value
    var next = first
    next.small = 1
    var bytes: [UInt8] = []
    try encoder.writePatch(to: next, into: &bytes)
    XCTAssertEqual(
      String(decoding: bytes, as: UTF8.self), #"[{"op":"replace","path":"/small","value":1}]"#)
    XCTAssertEqual(encodings.value, encodedFirst)
    next.big.values.append(1_000)
    bytes.removeAll()
    try encoder.writePatch(to: next, into: &bytes)
    XCTAssertEqual(
      String(decoding: bytes, as: UTF8.self),
      #"[{"op":"add","path":"/big/values/1000","value":1000}]"#)
    XCTAssertEqual(encodings.value, encodedFirst + 1)
  }

  /// An array as long as the last one is walked element by element: a changed member of one
  /// element is one `replace`, whatever the array holds. An element inserted or removed in the
  /// middle changes the length: the array is then diffed, as the reader holds it, which writes
  /// one operation rather than one per element after it.
  func testAnArrayIsPatchedByElementWhileItKeepsItsLength() throws {
    var first = Screen()
    first.items = [Alert(message: "a", code: 1), Alert(message: "b", code: 1)]
    var edited = first
    edited.items[1].code = 2
    var again = edited
    again.items[0].message = "c"
    var inserted = again
    inserted.items.insert(Alert(message: "x", code: 0), at: 1)
    var removed = inserted
    removed.items.remove(at: 0)
    XCTAssertEqual(
      try patches(from: first, to: [edited, again, inserted, removed]),
      [
        #"[{"op":"replace","path":"/items/1/code","value":2}]"#,
        #"[{"op":"replace","path":"/items/0/message","value":"c"}]"#,
        #"[{"op":"add","path":"/items/1","value":{"message":"x","code":0}}]"#,
        #"[{"op":"remove","path":"/items/0"}]"#,
      ])
  }

  /// The elements of an array walked by element are skipped like members: one with the same
  /// bits as before is not encoded again.
  func testAnUnchangedElementIsNotEncodedAgain() throws {
    let encodings = LockedBox(0)
    let first = Shelf(boxes: [
      Counted(values: [1], encodings: encodings), Counted(values: [2], encodings: encodings),
    ])
    var next = first
    next.boxes[1].values = [3]
    var last = next
    last.boxes[1].values = [4]
    let encoder = try JSONPatchEncoder(first)
    var bytes: [UInt8] = []
    try encoder.writePatch(to: next, into: &bytes)
    let encodedBefore = encodings.value
    bytes.removeAll()
    try encoder.writePatch(to: last, into: &bytes)
    XCTAssertEqual(
      String(decoding: bytes, as: UTF8.self),
      #"[{"op":"replace","path":"/boxes/1/values/0","value":4}]"#)
    XCTAssertEqual(encodings.value, encodedBefore + 1)
  }

  /// A member given as an optional, as a state that lists its members gives one, is walked as
  /// its wrapped value, as a struct's `encodeIfPresent` has it: an unchanged element is not
  /// encoded again. `nil` is `null`.
  func testAnOptionalMemberIsWalkedAsItsValue() throws {
    let encodings = LockedBox(0)
    let first: Shelf? = Shelf(boxes: [
      Counted(values: [1], encodings: encodings), Counted(values: [2], encodings: encodings),
    ])
    let encoder = JSONMemberPatchEncoder(keys: ["shelf"], values: [first])
    var operations: [String] = []
    func patch(to value: Shelf?) throws {
      var bytes: [UInt8] = []
      var isFirstOperation = true
      try encoder.writePatch(
        member: 0, to: value, into: &bytes, isFirstOperation: &isFirstOperation)
      operations.append(String(decoding: bytes, as: UTF8.self))
    }
    var next = first
    next?.boxes[1].values = [3]
    try patch(to: next)
    let encodedBefore = encodings.value
    next?.boxes[1].values = [4]
    try patch(to: next)
    XCTAssertEqual(encodings.value, encodedBefore + 1)
    try patch(to: nil)
    try patch(to: first)
    XCTAssertEqual(
      operations,
      [
        #"{"op":"replace","path":"/shelf/boxes/1/values/0","value":3}"#,
        #"{"op":"replace","path":"/shelf/boxes/1/values/0","value":4}"#,
        #"{"op":"replace","path":"/shelf","value":null}"#,
        #"{"op":"replace","path":"/shelf","value":{"boxes":[{"values":[1]},{"values":[2]}]}}"#,
      ])
  }

  /// Random values and random edits of them, arrays edited in place (walked by element) and
  /// changed in length (diffed): every patch turns the last encoding into the new one.
  func testPatchesTurnEachEncodingIntoTheNext() throws {
    var random = RandomScreens(seed: 11)
    var value = random.screen()
    let encoder = try JSONPatchEncoder(value)
    for step in 0..<2_000 {
      let before = try JSONValueEncoder().encode(value)
      value = step % 25 == 0 ? random.screen() : random.edited(value)
      var bytes: [UInt8] = []
      try encoder.writePatch(to: value, into: &bytes)
      let after = try JSONValueEncoder().encode(value)
      let patch = try bytes.withUnsafeBytes { try JSONParser.parse($0) }.arrayValue ?? []
      let operations = try patch.map { try JSONPatchOperation(json: $0) }
      XCTAssertEqual(
        try JSONPatch.apply(operations, to: before), after,
        "step \(step): \(String(decoding: bytes, as: UTF8.self))")
    }
  }

  private func patches<T: Encodable>(from first: T, to values: [T]) throws -> [String] {
    let encoder = try JSONPatchEncoder(first)
    return try values.map { value in
      var bytes: [UInt8] = []
      try encoder.writePatch(to: value, into: &bytes)
      return String(decoding: bytes, as: UTF8.self)
    }
  }
}

private struct Screen: Encodable, Equatable {
  struct Settings: Encodable, Equatable {
    var volume = 1
    var muted = false
    var name: String?
  }

  enum Mode: Encodable, Equatable {
    case idle
    case editing(line: Int)
    case failed(String)
  }

  var title = "a"
  var settings = Settings()
  var alert: Alert?
  var items: [Alert] = []
  var scores: [String: Int] = ["a": 1]
  var mode = Mode.idle
  var ratio = 0.5
  var grid: [[Float]] = [[0]]
}

private struct Shelf: Encodable {
  var boxes: [Counted]
}

private struct Alert: Encodable, Equatable {
  var message: String
  var code: Int
}

/// Writes `extra` only when it has one, as hand-written `encode(to:)` may.
private struct Sometimes: Encodable {
  var extra: Int?

  enum CodingKeys: CodingKey { case extra }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    if let extra { try container.encode(extra, forKey: .extra) }
  }
}

private struct Nested: Encodable {
  var a: Int
  var b: [Int]

  enum CodingKeys: CodingKey { case inner, list, a, b }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    var inner = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .inner)
    try inner.encode(a, forKey: .a)
    var list = container.nestedUnkeyedContainer(forKey: .list)
    for value in b { try list.encode(value) }
    var parent = container.superEncoder().container(keyedBy: CodingKeys.self)
    try parent.encode(b.count, forKey: .b)
  }
}

/// Counts its encodings.
private struct Counted: Encodable {
  var values: [Int]
  let encodings: LockedBox<Int>

  func encode(to encoder: any Encoder) throws {
    encodings.withValue { $0 += 1 }
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(values, forKey: .values)
  }

  enum CodingKeys: CodingKey { case values }
}

private struct Tracked: Encodable {
  var big: Counted
  var small: Int
}

/// Random screens, and random edits of a few members of one.
private struct RandomScreens {
  var random: RandomJSON

  init(seed: UInt64) {
    random = RandomJSON(seed: seed)
  }

  mutating func screen() -> Screen {
    var screen = Screen()
    for member in 0..<memberCount where random.chance(0.5) { edit(&screen, member: member) }
    return screen
  }

  mutating func edited(_ screen: Screen) -> Screen {
    var screen = screen
    for _ in 0...random.int(in: 0...2) {
      edit(&screen, member: random.int(in: 0...memberCount - 1))
    }
    return screen
  }

  private let memberCount = 10

  private mutating func edit(_ screen: inout Screen, member: Int) {
    switch member {
    case 0: screen.title = random.string()
    case 1: screen.settings.volume = random.int(in: 0...3)
    case 2: screen.settings.name = random.chance(0.5) ? nil : random.string()
    case 3:
      screen.alert =
        random.chance(0.3) ? nil : Alert(message: random.string(), code: random.int(in: 0...2))
    case 4: editItems(&screen.items)
    case 5:
      let key = random.key()
      screen.scores[key] = random.chance(0.3) ? nil : random.int(in: 0...9)
    case 6:
      screen.mode =
        [.idle, .editing(line: random.int(in: 0...3)), .failed(random.string())][
          random.int(in: 0...2)]
    case 7: screen.ratio = random.double()
    case 8: editGrid(&screen.grid)
    default: screen.settings.muted.toggle()
    }
  }

  /// Mostly edits in place, which keep the lengths (walked by element); sometimes a row or a
  /// cell more or fewer (diffed).
  private mutating func editGrid(_ grid: inout [[Float]]) {
    let row = random.int(in: 0...grid.count - 1)
    switch random.int(in: 0...5) {
    case 0: grid.insert([Float(random.int(in: 0...3))], at: random.int(in: 0...grid.count))
    case 1 where grid.count > 1: grid.remove(at: row)
    case 2: grid[row].append(0.5)
    case 3 where grid[row].count > 1: grid[row].removeFirst()
    default:
      grid[row][random.int(in: 0...grid[row].count - 1)] = Float(random.int(in: 0...3)) / 4
    }
  }

  private mutating func editItems(_ items: inout [Alert]) {
    let item = Alert(message: random.string(), code: random.int(in: 0...2))
    switch random.int(in: 0...3) {
    case 0: items.insert(item, at: random.int(in: 0...items.count))
    case 1 where !items.isEmpty: items.remove(at: random.int(in: 0...items.count - 1))
    case 2 where !items.isEmpty: items[random.int(in: 0...items.count - 1)].code += 1
    case 3 where items.count > 1: items.swapAt(0, items.count - 1)
    default: items.append(item)
    }
  }
}

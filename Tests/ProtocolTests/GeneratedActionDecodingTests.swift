import ComposableCore
import ComposableTestSupport
import JSON
import PrimesFeature
import XCTest

@_spi(Hosting) @testable import Protocol

// Fixtures: the shapes of ActionEchoTests' actions, and an action as a labelled field, an
// action beside a field, mixed labels, an enum without the macro under one with it.
@ComposableAction
private enum PlanAction: Equatable {
  case echo(EchoAction)
  case scoped(EchoRowAction, flag: Bool)
  case mixed(Int, label: String?)
  case `default`(value: Bool)
  case field(row: EchoRowAction, maybe: EchoAlertAction?)
  case plain(PlainAction)
}

/// Conforms without the macro: read through its synthesized `Decodable`, also under an enum
/// with the macro.
private enum PlainAction: ComposableAction, Equatable {
  case tapped
  case set(Int)
  case child(EchoCounterAction)
}

/// The decoding `@ComposableAction` writes against the enums' synthesized `Decodable`, which
/// stays the reference: the same action (and the same answer to whether it round-trips) or the
/// same error, on well-formed wire objects and on damaged ones.
final class GeneratedActionDecodingTests: XCTestCase {
  func testTheWrittenDecodingReadsTheWireForm() throws {
    for (action, wire) in Self.table {
      XCTAssertEqual(try ActionCoding.decode(PlanAction.self, from: wire), action, wire.jsonString)
    }
  }

  func testTheWrittenDecodingRejectsAsTheSynthesizedOneDoes() {
    let cases: [(JSONValue, String)] = [
      (
        ["type": "echo.counter.nope"],
        #"unknown action "echo.counter.nope": EchoCounterAction has no case "nope""#
      ),
      (
        ["type": "echo.counter"],
        #"unknown action "echo.counter": "echo.counter" needs a child action"#
      ),
      (
        ["type": "echo.message.more", "value": "x"],
        #"unknown action "echo.message.more": "echo.message" takes no child action"#
      ),
      (
        ["type": "echo.message", "value": 1],
        #"echo.message: field "value": expected a string, got 1"#
      ),
      (
        ["type": "echo.message", "value": "x", "extra": 1], #"echo.message: unknown field "extra""#
      ),
      (["type": "echo.move", "from": 1], #"echo.move: missing field "to""#),
      (
        ["type": "echo.pair", "value": "a", "_1": 2],
        #"echo.pair: the case has several unlabelled values: send them as "_0", "_1", …, not "value""#
      ),
    ]
    for (wire, message) in cases {
      XCTAssertThrowsError(try ActionCoding.decode(PlanAction.self, from: wire)) { error in
        XCTAssertEqual((error as? ActionDecodingError)?.message, message)
      }
      XCTAssertEqual(
        Self.outcome(PlanAction.self, wire, synthesizedOnly: false),
        Self.outcome(PlanAction.self, wire, synthesizedOnly: true))
    }
  }

  func testTheWrittenDecodingAgreesWithTheSynthesizedOneOnRandomWireObjects() {
    var random = SeededGenerator(seed: 35)
    var decoded = 0
    var rejected = 0
    for _ in 0..<20_000 {
      let wire = Self.randomWire(
        types: Self.planTypes, samples: Self.table.map(\.1), fieldNames: Self.planFieldNames,
        using: &random)
      let written = Self.outcome(PlanAction.self, wire, synthesizedOnly: false)
      XCTAssertEqual(
        written, Self.outcome(PlanAction.self, wire, synthesizedOnly: true), wire.jsonString)
      if case .success = written { decoded += 1 } else { rejected += 1 }
    }
    // Both answers must come up often, or the agreement shows little.
    XCTAssertGreaterThan(decoded, 3_000)
    XCTAssertGreaterThan(rejected, 3_000)
  }

  func testASeedStoresWrittenDecodingAgreesWithTheSynthesizedOne() {
    var random = SeededGenerator(seed: 36)
    let types = PrimesAction.describedCases.map(\.type) + ["counter", "nope", "counter.x"]
    let samples: [PrimesAction] = [
      .counter(.countChanged(3)), .counter(.nthPrimeResponse(nil)), .counter(.nthPrimeResponse(2)),
      .favoritePrimes(.deleteFavoritePrimes(indices: [0])),
      .favoritePrimes(.loadedFavoritePrimes([2, 3])),
      .favoritePrimes(.storageFailed(operation: .save, message: "m")),
    ]
    var decoded = 0
    for _ in 0..<10_000 {
      let wire = Self.randomWire(
        types: types, samples: samples.map { ActionCoding.encode($0) },
        fieldNames: ["value", "_0", "indices", "operation", "message", "extra"], using: &random)
      let written = Self.outcome(PrimesAction.self, wire, synthesizedOnly: false)
      XCTAssertEqual(
        written, Self.outcome(PrimesAction.self, wire, synthesizedOnly: true), wire.jsonString)
      if case .success = written { decoded += 1 }
    }
    XCTAssertGreaterThan(decoded, 1_000)
  }

  /// Where a line's action object is text of scalars, the store reads it straight from the
  /// text (``ActionTextReader``): wherever that reader answers, the general path (the line
  /// parsed, the action decoded from the parsed object) answers the same, and where the action
  /// round-trips, the compact text is the very bytes the general path writes back.
  func testTheTextReaderAgreesWithTheGeneralPathOnRandomLines() {
    var random = SeededGenerator(seed: 37)
    var read = (plan: 0, primes: 0, echoed: 0, nested: 0)
    for _ in 0..<20_000 {
      let plan = Self.randomWire(
        types: Self.planTypes, samples: Self.table.map(\.1), fieldNames: Self.planFieldNames,
        using: &random)
      if Self.checkTextReading(
        PlanAction.self, plan, using: &random, echoed: &read.echoed, nested: &read.nested)
      {
        read.plan += 1
      }
      let primes = Self.randomWire(
        types: PrimesAction.describedCases.map(\.type) + ["counter", "nope", "counter.x"],
        samples: [
          ActionCoding.encode(PrimesAction.counter(.countChanged(3))),
          ActionCoding.encode(PrimesAction.counter(.nthPrimeResponse(nil))),
          ActionCoding.encode(PrimesAction.favoritePrimes(.deleteFavoritePrimes(indices: [0]))),
        ], fieldNames: ["value", "_0", "indices", "extra"], using: &random)
      if Self.checkTextReading(
        PrimesAction.self, primes, using: &random, echoed: &read.echoed, nested: &read.nested)
      {
        read.primes += 1
      }
    }
    // The reader must answer often, or the agreement shows little.
    XCTAssertGreaterThan(read.plan, 1_000)
    XCTAssertGreaterThan(read.primes, 1_000)
    XCTAssertGreaterThan(read.echoed, 1_000)
    // Objects and arrays in the payload: structs, lists, actions in fields.
    XCTAssertGreaterThan(read.nested, 1_000)
  }

  /// Writes `wire` as the action of a line, its members maybe in another order, with
  /// whitespace or with a key twice; checks the text reader against the general path. True
  /// when the text reader read it.
  private static func checkTextReading<A: ComposableAction>(
    _ type: A.Type, _ wire: JSONValue, using random: inout SeededGenerator, echoed: inout Int,
    nested: inout Int
  ) -> Bool {
    guard case .object(let object) = wire else { return false }
    var members = object.map { JSONValue.string($0.key).jsonString + ":" + $0.value.jsonString }
    if Int.random(in: 0..<4, using: &random) == 0 { members.shuffle(using: &random) }
    if Int.random(in: 0..<20, using: &random) == 0,
      let member = members.randomElement(using: &random)
    {
      members.append(member)
    }
    let spaced = Int.random(in: 0..<4, using: &random) == 0
    let text = "{" + members.joined(separator: spaced ? " , " : ",") + (spaced ? " }" : "}")
    let line = Array(#"{"store":"s","action":"#.utf8) + Array(text.utf8) + [UInt8(ascii: "}")]
    return line.withUnsafeBytes { bytes -> Bool in
      guard let compact = try? CompactActionLine(bytes, maxDepth: JSONParser.defaultMaxDepth),
        case .text(let actionText) = compact.action
      else { return false }
      XCTAssertEqual(actionText.isCompact, !spaced, text)
      let general: Outcome
      do {
        guard
          case .action(_, _, let parsed, _) = try InputMessage(JSONParser.parse(bytes), line: bytes)
        else {
          XCTFail(text)
          return false
        }
        general = outcome(A.self, parsed, synthesizedOnly: false)
        guard let (action, roundTrips) = ActionCoding.decodeNoting(A.self, from: actionText) else {
          return false
        }
        XCTAssertEqual(
          general, .success(ActionCoding.encode(action).jsonString, roundTrips: roundTrips), text)
        if roundTrips, actionText.isCompact {
          var written: [UInt8] = []
          parsed.write(into: &written)
          XCTAssertEqual(Array(actionText.bytes), written, text)
          echoed += 1
        }
        if actionText.depth > 1 { nested += 1 }
        return true
      } catch {
        XCTFail("\(text): \(error)")
        return false
      }
    }
  }

  /// What decoding gives: the action as its wire form (so that actions of any type compare)
  /// and whether it round-trips, or the error's message.
  private enum Outcome: Equatable {
    case success(String, roundTrips: Bool)
    case failure(String)
  }

  private static func outcome<A: ComposableAction>(
    _ type: A.Type, _ wire: JSONValue, synthesizedOnly: Bool
  ) -> Outcome {
    do {
      let (action, roundTrips) = try ActionCoding.decodeNoting(
        A.self, from: wire, synthesizedOnly: synthesizedOnly)
      return .success(ActionCoding.encode(action).jsonString, roundTrips: roundTrips)
    } catch {
      return .failure("\(error.kind): \(error.message)")
    }
  }

  private static let table: [(PlanAction, JSONValue)] = [
    (.echo(.counter(.incrTapped)), "echo.counter.incrTapped"),
    (.echo(.counter(.countChanged(3))), ["type": "echo.counter.countChanged", "value": 3]),
    (.echo(.move(from: 1, to: 2)), ["type": "echo.move", "from": 1, "to": 2]),
    (.echo(.pair("a", 2)), ["type": "echo.pair", "_0": "a", "_1": 2]),
    (.echo(.response(nil)), ["type": "echo.response", "value": .null]),
    (.echo(.alert(nil)), ["type": "echo.alert"]),
    (.echo(.alert(.dismissed)), ["type": "echo.alert.dismissed"]),
    (.echo(.note(nil, count: 1)), ["type": "echo.note", "_0": .null, "count": 1]),
    (.mixed(4, label: "x"), ["type": "mixed", "_0": 4, "label": "x"]),
    (.default(value: true), ["type": "default", "value": true]),
    (
      .scoped(.renamed(title: "t"), flag: true),
      ["type": "scoped.renamed", "title": "t", "flag": true]
    ),
    (
      .field(row: .toggled, maybe: nil),
      ["type": "field", "row": ["type": "toggled"], "maybe": .null]
    ),
    (
      .echo(.rows(.element(id: 3, action: .renamed(title: "r")))),
      ["type": "echo.rows.element", "id": 3, "action": ["type": "renamed", "title": "r"]]
    ),
    (.plain(.child(.countChanged(5))), ["type": "plain.child.countChanged", "value": 5]),
    (
      .echo(.profile(EchoProfile(name: "ada", age: 3))),
      ["type": "echo.profile", "value": ["name": "ada", "age": 3]]
    ),
  ]

  /// The fixtures' type paths, and some that are not.
  private static let planTypes = [
    "echo.counter.incrTapped", "echo.counter.countChanged", "echo.message", "echo.move",
    "echo.pair", "echo.response", "echo.flag", "echo.ratio", "echo.small", "echo.profile",
    "echo.list", "echo.rows.element", "echo.alert", "echo.alert.dismissed", "echo.note",
    "echo.café", "echo.cafe\u{301}", "echo", "scoped.toggled", "scoped.renamed", "mixed", "default",
    "field",
    "plain.tapped", "plain.set", "plain.child.countChanged", "plain.child.nope", "echo.counter",
    "nope", "", "echo.counter.incrTapped.more", "plain", "plain.child",
  ]

  private static let planFieldNames = [
    "value", "_0", "_1", "from", "to", "on", "count", "title", "flag", "label", "row", "maybe",
    "id", "action", "type", "extra",
  ]

  /// A wire object: one of `samples` as it is or with one thing changed, or one for one of
  /// `types` with fields named from `fieldNames`; values of every kind, so that a good share
  /// decodes and the rest fails in every way it can.
  private static func randomWire(
    types: [String], samples: [JSONValue], fieldNames names: [String],
    using random: inout SeededGenerator
  ) -> JSONValue {
    func value(depth: Int = 0) -> JSONValue {
      switch Int.random(in: 0..<12, using: &random) {
      case 0: return .null
      case 1: return .bool(Bool.random(using: &random))
      case 2, 3: return .int([0, -1, 7, 200, Int.max].randomElement(using: &random)!)
      case 4: return .number([0.5, 2, -1e300].randomElement(using: &random)!)
      case 5, 6: return .string(["", "a", "hello", "é"].randomElement(using: &random)!)
      case 7 where depth == 0:
        return .array((0..<Int.random(in: 0...2, using: &random)).map { _ in value(depth: 1) })
      case 8 where depth == 0:
        return ["name": value(depth: 1), "age": value(depth: 1)]
      case 9 where depth == 0:
        return .string(["toggled", "dismissed", "renamed"].randomElement(using: &random)!)
      case 10 where depth == 0:
        var action: JSONObject = [
          "type": .string(
            ["toggled", "renamed", "dismissed", "nope"].randomElement(using: &random)!)
        ]
        if Bool.random(using: &random) { action["title"] = value(depth: 1) }
        return .object(action)
      default: return .int(Int.random(in: -3...3, using: &random))
      }
    }
    let type = types.randomElement(using: &random)!
    if Int.random(in: 0..<8, using: &random) == 0 { return .string(type) }
    var object: JSONObject = ["type": .string(type)]
    if Bool.random(using: &random),
      case .object(let sample) = samples.randomElement(using: &random)!
    {
      object = sample
      let key = sample.keys.randomElement(using: &random)!
      switch Int.random(in: 0..<6, using: &random) {
      case 0: object[key] = value()
      case 1 where key != "type": _ = object.removeValue(forKey: key)
      case 2: object[names.randomElement(using: &random)!] = value()
      case 3: object["type"] = .string(type)
      default: break
      }
    } else {
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        let name = names.randomElement(using: &random)!
        if name != "type" { object[name] = value() }
      }
    }
    if Int.random(in: 0..<20, using: &random) == 0 { object["type"] = value() }
    return .object(object)
  }
}

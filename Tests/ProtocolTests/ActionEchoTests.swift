import ComposableCore
import ComposableTestSupport
import JSON
import PrimesFeature
@_spi(Hosting) import Protocol
import XCTest

// Fixtures: one case of each shape the wire carries, with the decoding `@ComposableAction`
// writes (GeneratedActionDecodingTests compares it with synthesized Codable on them).
@ComposableAction
enum EchoAction: Equatable {
  case counter(EchoCounterAction)
  case message(String)
  case move(from: Int, to: Int)
  case pair(String, Int)
  case response(Int?)
  case flag(on: Bool)
  case ratio(Double)
  case small(Int8)
  case profile(EchoProfile)
  case list([Int])
  case rows(IdentifiedAction<Int, EchoRowAction>)
  case alert(EchoAlertAction?)
  case note(String?, count: Int)
  case café(Int)
}

@ComposableAction
enum EchoCounterAction: Equatable {
  case incrTapped
  case countChanged(Int)
}

@ComposableAction
enum EchoRowAction: Equatable {
  case toggled
  case renamed(title: String)
}

@ComposableAction
enum EchoAlertAction: Equatable {
  case dismissed
}

struct EchoProfile: Codable, Equatable, Sendable {
  var name: String
  var age: Int
}

/// A line shows a payload action as the host sent it, rather than encoding it again, where
/// ``ActionCoding/decodeNoting(_:from:)`` says encoding gives it back: checked here against
/// encoding, on random wire objects in their written form and in others that decode the same.
final class ActionEchoTests: XCTestCase {
  func testAnActionThatRoundTripsIsWrittenAsEncodingWritesIt() throws {
    var random = SeededGenerator(seed: 35)
    var echoed = 0
    var encoded = 0
    for _ in 0..<20_000 {
      let action = Self.randomAction(using: &random)
      let wire = Self.variant(of: ActionCoding.encode(action), using: &random)
      let general = try? ActionCoding.decode(EchoAction.self, from: wire)
      let noted = try? ActionCoding.decodeNoting(EchoAction.self, from: wire)
      XCTAssertEqual(noted?.action, general, wire.jsonString)
      guard let noted else { continue }
      if noted.roundTrips {
        echoed += 1
        var sent: [UInt8] = []
        wire.write(into: &sent)
        var written: [UInt8] = []
        ActionCoding.encode(noted.action, into: &written)
        XCTAssertEqual(
          String(decoding: sent, as: UTF8.self), String(decoding: written, as: UTF8.self))
      } else {
        encoded += 1
      }
    }
    // Both answers must come up often, or the agreement above shows little.
    XCTAssertGreaterThan(echoed, 4_000)
    XCTAssertGreaterThan(encoded, 4_000)
  }

  func testWhatEncodingWouldChangeIsNotEchoed() throws {
    for wire: JSONValue in [
      // Another order, a lone value under its synthesized name, a number of another kind.
      ["value": 3, "type": "counter.countChanged"],
      ["type": "counter.countChanged", "_0": 3],
      ["type": "counter.countChanged", "value": .number(3)],
      ["type": "move", "to": 1, "from": 0],
      // Doubles and structs are written by their encoders, which may write them otherwise.
      ["type": "ratio", "value": 0.5],
      ["type": "profile", "value": ["age": 3, "name": "ada"]],
      // An action field in its bare form is encoded as an object.
      ["type": "rows.element", "id": 1, "action": "toggled"],
      // The bare type string, for a case without a payload.
      "counter.incrTapped",
      // A case name in another Unicode form than the case's own: it matches, and is encoded
      // as the case spells it.
      ["type": "cafe\u{301}", "value": 1],
    ] {
      let noted = try ActionCoding.decodeNoting(EchoAction.self, from: wire)
      XCTAssertFalse(noted.roundTrips, wire.jsonString)
    }
    for wire: JSONValue in [
      ["type": "counter.countChanged", "value": 3],
      ["type": "pair", "_0": "a", "_1": 2],
      ["type": "response", "value": .null],
      ["type": "note", "_0": .null, "count": 2],
      ["type": "rows.element", "id": 1, "action": ["type": "renamed", "title": "é\n"]],
      ["type": "alert"],
      ["type": "caf\u{E9}", "value": 1],
    ] {
      let noted = try ActionCoding.decodeNoting(EchoAction.self, from: wire)
      XCTAssertTrue(noted.roundTrips, wire.jsonString)
      XCTAssertEqual(ActionCoding.encode(noted.action).jsonString, wire.jsonString)
    }
  }

  /// Through a session, the action of every line is written as encoding its action writes
  /// it, whichever form the host sent.
  func testActionLinesShowTheEncodedActionWhateverTheHostSent() throws {
    var random = SeededGenerator(seed: 36)
    var inputs: [String] = []
    var expected: [String] = []
    for _ in 0..<500 {
      let action: PrimesAction =
        Bool.random(using: &random)
        ? .counter(.countChanged(Int.random(in: -1_000_000...1_000_000, using: &random)))
        : .counter(.incrTapped)
      let wire = Self.variant(of: ActionCoding.encode(action), using: &random)
      // Only the variants that are still the action: the others are refused.
      guard (try? ActionCoding.decode(PrimesAction.self, from: wire)) == action else { continue }
      inputs.append(#"{"store":"primes","action":"# + wire.jsonString + "}")
      expected.append(ActionCoding.encode(action).jsonString)
    }
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let bytes = StoreActor.assumeIsolated {
      let session = Session.primes(recordingBuildsIn: LockedBox([]))
      for (index, input) in inputs.enumerated() {
        Array(input.utf8).withUnsafeBytes { session.handleLine($0, lineNumber: index + 1) }
      }
      var bytes: [UInt8] = []
      session.output.drain { bytes.append(contentsOf: $0) }
      return bytes
    }
    executor.runUntilIdle()
    let written = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { line in
      // The action's text as written: between `"action":` and `,"patch":`.
      let start = line.range(of: #","action":"#)!.upperBound
      let end = line.range(of: #","patch":"#)!.lowerBound
      return String(line[start..<end])
    }
    XCTAssertEqual(written, expected)
    XCTAssertGreaterThan(expected.count, 300)
  }

  private static func randomAction(using random: inout SeededGenerator) -> EchoAction {
    func int() -> Int {
      [0, -1, 7, Int.max, Int.min, Int.random(in: -1_000...1_000, using: &random)]
        .randomElement(using: &random)!
    }
    func string() -> String {
      let pieces = ["a", "hello ", "é", "\"", "\\", "\n", "\u{1}", "/", "😀", "\u{7F}", ""]
      return (0..<Int.random(in: 0...4, using: &random)).map { _ in
        pieces.randomElement(using: &random)!
      }.joined()
    }
    switch Int.random(in: 0..<14, using: &random) {
    case 0: return .counter(.incrTapped)
    case 1: return .counter(.countChanged(int()))
    case 2: return .message(string())
    case 3: return .move(from: int(), to: int())
    case 4: return .pair(string(), int())
    case 5: return .response(Bool.random(using: &random) ? nil : int())
    case 6: return .flag(on: Bool.random(using: &random))
    case 7: return .ratio([0, 0.5, 1, -2.25, 1e300].randomElement(using: &random)!)
    case 8: return .small(Int8.random(in: .min ... .max, using: &random))
    case 9: return .profile(EchoProfile(name: string(), age: int()))
    case 10: return .list((0..<Int.random(in: 0...3, using: &random)).map { _ in int() })
    case 11:
      return .rows(
        .element(
          id: int(), action: Bool.random(using: &random) ? .toggled : .renamed(title: string())))
    case 12: return .alert(Bool.random(using: &random) ? nil : .dismissed)
    default: return .note(Bool.random(using: &random) ? nil : string(), count: int())
    }
  }

  /// `wire` as written, or changed in a way the decoder may still accept: members in another
  /// order, a lone value under its synthesized name, an integer as a floating-point number, an
  /// action field in its bare form, an unknown or missing member.
  private static func variant(of wire: JSONValue, using random: inout SeededGenerator)
    -> JSONValue
  {
    guard case .object(let object) = wire else { return wire }
    var members = Array(object)
    switch Int.random(in: 0..<10, using: &random) {
    case 0:
      members.shuffle(using: &random)
    case 1:
      members = members.map { $0.key == "value" ? ("_0", $0.value) : $0 }
    case 2:
      members = members.map { member in
        guard case .int(let value) = member.value else { return member }
        return (member.key, .number(Double(value)))
      }
    case 3:
      members = members.map { member in
        guard member.key == "action", case .object(let action) = member.value, action.count == 1
        else { return member }
        return (member.key, action["type"]!)
      }
    case 4:
      members.append(("extra", 1))
    case 5 where members.count > 1:
      members.removeLast()
    case 6 where members.count == 1:
      return members[0].value
    default:
      break
    }
    return .object(JSONObject(members.map { ($0.key, $0.value) }))
  }
}

import ComposableCore
import JSON
import Protocol
import XCTest

// Fixtures: action enums shaped like the features', with synthesized Codable.
private enum AppAction: ComposableAction, Equatable {
  case counter(CounterAction)
  case favoritePrimes(FavoritesAction)
  case alert(AlertAction?)
  case settings(SettingsAction)
}

private enum CounterAction: ComposableAction, Equatable {
  case incrTapped
  case decrTapped
  case nthPrimeResponse(Int?)
}

private enum FavoritesAction: ComposableAction, Equatable {
  case deleteFavoritePrimes(indices: [Int])
  case loadedFavoritePrimes([Int])
}

private enum AlertAction: ComposableAction, Equatable {
  case dismissed
}

private enum SettingsAction: ComposableAction, Equatable {
  case rename(String, Int)
  case setRatio(ratio: Double, note: String?)
  case setLimit(Int8)
  case update(Profile)
  case scoped(ToggleAction, flag: Bool)
  case labelledValue(value: Bool)
}

private enum ToggleAction: ComposableAction, Equatable {
  case toggled
}

/// Hand-written `Codable`, which the wire format cannot carry.
private enum RawAction: ComposableAction, Equatable {
  case ping

  init(from decoder: any Decoder) throws {
    _ = try decoder.singleValueContainer().decode(String.self)
    self = .ping
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode("ping")
  }
}

private struct Profile: Codable, Equatable, Sendable {
  var name: String
  var age: Int
}

final class ActionCodingTests: XCTestCase {
  private let table: [(AppAction, String)] = [
    (.counter(.incrTapped), #"{"type":"counter.incrTapped"}"#),
    (.counter(.nthPrimeResponse(7)), #"{"type":"counter.nthPrimeResponse","value":7}"#),
    (.counter(.nthPrimeResponse(nil)), #"{"type":"counter.nthPrimeResponse","value":null}"#),
    (
      .favoritePrimes(.deleteFavoritePrimes(indices: [1, 2])),
      #"{"type":"favoritePrimes.deleteFavoritePrimes","indices":[1,2]}"#
    ),
    (
      .favoritePrimes(.loadedFavoritePrimes([2, 3])),
      #"{"type":"favoritePrimes.loadedFavoritePrimes","value":[2,3]}"#
    ),
    (.alert(.dismissed), #"{"type":"alert.dismissed"}"#),
    (.alert(nil), #"{"type":"alert"}"#),
    (.settings(.rename("ada", 2)), #"{"type":"settings.rename","_0":"ada","_1":2}"#),
    (
      .settings(.setRatio(ratio: 0.5, note: nil)),
      #"{"type":"settings.setRatio","ratio":0.5,"note":null}"#
    ),
    (.settings(.setLimit(-3)), #"{"type":"settings.setLimit","value":-3}"#),
    (
      .settings(.update(Profile(name: "ada", age: 36))),
      #"{"type":"settings.update","value":{"name":"ada","age":36}}"#
    ),
    (.settings(.scoped(.toggled, flag: true)), #"{"type":"settings.scoped.toggled","flag":true}"#),
    (.settings(.labelledValue(value: false)), #"{"type":"settings.labelledValue","value":false}"#),
  ]

  func testEncodesTheWireForm() {
    for (action, wire) in table {
      XCTAssertEqual(ActionCoding.encode(action).jsonString, wire)
      var buffer: [UInt8] = Array("x".utf8)
      ActionCoding.encode(action, into: &buffer)
      XCTAssertEqual(String(decoding: buffer, as: UTF8.self), "x" + wire)
    }
  }

  func testDecodesTheWireForm() throws {
    for (action, wire) in table {
      XCTAssertEqual(
        try ActionCoding.decode(AppAction.self, from: JSONParser.parse(wire)), action, wire)
    }
  }

  func testPayloadFreeActionsMayBeBareStrings() throws {
    XCTAssertEqual(
      try ActionCoding.decode(AppAction.self, from: "counter.incrTapped"), .counter(.incrTapped))
    XCTAssertEqual(
      try ActionCoding.decode(AppAction.self, from: "alert.dismissed"), .alert(.dismissed))
    XCTAssertEqual(try ActionCoding.decode(AppAction.self, from: "alert"), .alert(nil))
    assertFails(
      "counter.nthPrimeResponse", .invalidAction,
      #"counter.nthPrimeResponse: missing field "value""#)
  }

  func testTypePath() {
    XCTAssertEqual(
      ActionCoding.typePath(of: AppAction.counter(.nthPrimeResponse(3))), "counter.nthPrimeResponse"
    )
    XCTAssertEqual(
      ActionCoding.typePath(of: AppAction.settings(.scoped(.toggled, flag: false))),
      "settings.scoped.toggled")
    XCTAssertEqual(ActionCoding.typePath(of: CounterAction.incrTapped), "incrTapped")
  }

  func testUnknownActions() {
    assertFails(
      ["type": "counter.nope"], .unknownAction,
      #"unknown action "counter.nope": CounterAction has no case "nope""#)
    assertFails(
      ["type": "nope"], .unknownAction, #"unknown action "nope": AppAction has no case "nope""#)
    assertFails(
      ["type": "counter"], .unknownAction,
      #"unknown action "counter": "counter" needs a child action"#)
    assertFails(
      ["type": "counter.incrTapped.more"], .unknownAction,
      #"unknown action "counter.incrTapped.more": "counter.incrTapped" takes no child action"#)
    assertFails(
      ["type": "counter.nthPrimeResponse.more", "value": 1], .unknownAction,
      #"unknown action "counter.nthPrimeResponse.more": "counter.nthPrimeResponse" takes no child action"#
    )
    assertFails(["type": ""], .unknownAction, #"unknown action "": AppAction has no case """#)
    assertFails(
      ["type": "counter."], .unknownAction,
      #"unknown action "counter.": CounterAction has no case """#)
    assertFails(
      ["type": ".counter"], .unknownAction, #"unknown action ".counter": AppAction has no case """#)
    assertFails("nope", .unknownAction, #"unknown action "nope": AppAction has no case "nope""#)
    assertFails(
      "counter.\u{301}incrTapped", .unknownAction,
      "unknown action \"counter.\u{301}incrTapped\": CounterAction has no case \"\u{301}incrTapped\""
    )
  }

  func testInvalidActions() {
    assertFails([:], .invalidAction, #"action has no "type""#)
    assertFails(["kind": "counter.incrTapped"], .invalidAction, #"action has no "type""#)
    assertFails(["type": 7], .invalidAction, #"action "type" must be a string, got 7"#)
    assertFails(7, .invalidAction, "an action must be an object or a type string, got 7")
    assertFails([1], .invalidAction, "an action must be an object or a type string, got an array")
    assertFails(
      ["type": "counter.nthPrimeResponse", "value": "x"], .invalidAction,
      #"counter.nthPrimeResponse: field "value": expected an integer or null, got "x""#)
    assertFails(
      ["type": "counter.nthPrimeResponse", "value": 1.5], .invalidAction,
      #"counter.nthPrimeResponse: field "value": expected an integer or null, got 1.5"#)
    assertFails(
      ["type": "counter.nthPrimeResponse"], .invalidAction,
      #"counter.nthPrimeResponse: missing field "value""#)
    assertFails(
      ["type": "counter.incrTapped", "extra": 1], .invalidAction,
      #"counter.incrTapped: unknown field "extra""#)
    assertFails(
      ["type": "counter.nthPrimeResponse", "value": 1, "valu": 2], .invalidAction,
      #"counter.nthPrimeResponse: unknown field "valu""#)
    assertFails(
      ["type": "favoritePrimes.deleteFavoritePrimes", "indices": [1, "2"]], .invalidAction,
      #"favoritePrimes.deleteFavoritePrimes: field "indices": /1: expected an integer, got "2""#)
    assertFails(
      ["type": "favoritePrimes.deleteFavoritePrimes", "indices": nil], .invalidAction,
      #"favoritePrimes.deleteFavoritePrimes: field "indices": expected an array, got null"#)
    assertFails(
      ["type": "settings.setLimit", "value": 300], .invalidAction,
      #"settings.setLimit: field "value": number out of range for Int8: 300"#)
    assertFails(
      ["type": "settings.setRatio", "ratio": 1], .invalidAction,
      #"settings.setRatio: missing field "note""#)
    assertFails(
      ["type": "settings.setRatio", "ratio": true, "note": nil], .invalidAction,
      #"settings.setRatio: field "ratio": expected a number, got true"#)
    assertFails(
      ["type": "settings.update", "value": ["name": "ada", "age": "x"]], .invalidAction,
      #"settings.update: field "value": /age: expected an integer, got "x""#)
    assertFails(
      ["type": "settings.rename", "value": "ada", "_1": 2], .invalidAction,
      #"settings.rename: the case has several unlabelled values: send them as "_0", "_1", …, not "value""#
    )
    assertFails(
      ["type": "settings.scoped.toggled"], .invalidAction,
      #"settings.scoped.toggled: missing field "flag""#)
  }

  func testNumbersConvertAcrossJSONNumberForms() throws {
    XCTAssertEqual(
      try ActionCoding.decode(
        AppAction.self, from: ["type": "counter.nthPrimeResponse", "value": 7.0]),
      .counter(.nthPrimeResponse(7)))
    XCTAssertEqual(
      try ActionCoding.decode(
        AppAction.self, from: ["type": "settings.setRatio", "ratio": 2, "note": "n"]),
      .settings(.setRatio(ratio: 2, note: "n")))
  }

  func testRoundTripsThroughText() throws {
    let actions: [AppAction] =
      table.map(\.0) + [
        .settings(.rename("", .min)), .settings(.setRatio(ratio: -0.0, note: "é\n\"")),
        .settings(.update(Profile(name: "x", age: .max))), .counter(.decrTapped),
      ]
    for action in actions {
      var buffer: [UInt8] = []
      ActionCoding.encode(action, into: &buffer)
      XCTAssertEqual(
        try ActionCoding.decode(AppAction.self, from: JSONParser.parse(buffer)), action)
    }
  }

  func testChildEnumsDecodeOnTheirOwn() throws {
    XCTAssertEqual(
      try ActionCoding.decode(CounterAction.self, from: ["type": "nthPrimeResponse", "value": 5]),
      .nthPrimeResponse(5))
    XCTAssertEqual(
      ActionCoding.encode(FavoritesAction.loadedFavoritePrimes([])).jsonString,
      #"{"type":"loadedFavoritePrimes","value":[]}"#)
  }

  func testHandWrittenCodableIsRejected() {
    XCTAssertThrowsError(try ActionCoding.decode(RawAction.self, from: "ping")) { error in
      XCTAssertEqual((error as? ActionDecodingError)?.kind, .invalidAction)
      XCTAssertEqual(
        (error as? ActionDecodingError)?.message,
        "RawAction asked for a single-value container; use synthesized Codable")
    }
  }

  private func assertFails(
    _ wire: JSONValue, _ kind: ActionDecodingError.Kind, _ message: String,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertThrowsError(
      try ActionCoding.decode(AppAction.self, from: wire), file: file, line: line
    ) { error in
      XCTAssertEqual(
        (error as? ActionDecodingError)?.kind, kind, "\(error)", file: file, line: line)
      XCTAssertEqual((error as? ActionDecodingError)?.message, message, file: file, line: line)
    }
  }
}

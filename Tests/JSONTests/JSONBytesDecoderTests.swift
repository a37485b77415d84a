import ComposableTestSupport
import JSON
import XCTest

/// `JSONBytesDecoder` against the two steps it replaces, `JSONParser.parse` then
/// `JSONValueDecoder`: on random documents, valid or not, and random values of a family of
/// `Decodable` types edited at random, both give the same value or the same error.
final class JSONBytesDecoderTests: XCTestCase {
  func testDecodesAValueAsTheTwoStepsDo() throws {
    let text = #"""
      {"code": "KRW-BTC", "timestamp": 1700000000000, "levels": [{"price": 95009500.0,
      "size": 0.5, "count": 3}, {"price": 1e2, "size": 2, "count": null}], "side": "ask",
      "tags": {"b": 2, "a": 1}, "ids": [1, -2], "names": null, "extra": {"x": [true, null]},
      "flags": [false], "events": [{"tick": {"_0": 4}}, {"reset": {}}], "nested": [[], [7]],
      "maybe": null}
      """#
    let book = try JSONBytesDecoder().decode(Book.self, from: Array(text.utf8))
    XCTAssertEqual(
      book.levels,
      [.init(price: 95_009_500, size: 0.5, count: 3), .init(price: 100, size: 2, count: nil)])
    XCTAssertEqual(book.extra, ["x": [true, nil]])
    XCTAssertEqual(book.events, [.tick(4), .reset])
    assertSameOutcome(Book.self, text)
  }

  func testErrorsAreTheTwoStepsErrors() {
    // Not JSON: the parser's error, even where decoding would fail first.
    assertSameOutcome(Level.self, #"{"price": "x", "size": 1,}"#)
    assertSameOutcome(Level.self, #"{"price": 1, "price": 2, "size": 1}"#)
    assertSameOutcome(Level.self, #"{"price": 1, "pr\u0069ce": 2, "size": 1}"#)
    assertSameOutcome(Level.self, "")
    assertSameOutcome(Level.self, "  ")
    assertSameOutcome(Level.self, #"{"price": 1, "size": 1} x"#)
    assertSameOutcome(Level.self, #"{"price": 1e400, "size": 1}"#)
    // JSON of the wrong shape.
    assertSameOutcome(Level.self, #"{"price": "x", "size": 1}"#)
    assertSameOutcome(Level.self, #"{"size": 1}"#)
    assertSameOutcome(Level.self, #"{"price": null, "size": 1}"#)
    assertSameOutcome(Level.self, #"{"price": 1, "size": 1e300}"#)
    assertSameOutcome(Level.self, #"{"price": 1, "size": 1, "count": 300}"#)
    assertSameOutcome(Level.self, #"{"price": 1, "size": 1, "count": [1]}"#)
    assertSameOutcome(Level.self, #"[1, 2]"#)
    assertSameOutcome(Level?.self, "null")
    assertSameOutcome(Level?.self, "1")
    assertSameOutcome([Int].self, #"[1, 2.5]"#)
    assertSameOutcome([String].self, #"{"a": 1}"#)
    assertSameOutcome(Int.self, #""1""#)
    assertSameOutcome(Side.self, #""up""#)
  }

  func testDepthLimitIsTheParsers() {
    let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
    XCTAssertEqual(
      outcome(JSONValue.self, deep, maxDepth: 64), reference(JSONValue.self, deep, maxDepth: 64))
    XCTAssertEqual(
      outcome(JSONValue.self, deep, maxDepth: 80), reference(JSONValue.self, deep, maxDepth: 80))
  }

  func testRandomDocumentsParseAlike() {
    var random = RandomJSON(seed: 35)
    var texts = RandomText(seed: 36)
    var kinds: [Bool: Int] = [:]
    for _ in 0..<3000 {
      let text = texts.mangled(texts.document(random.value()))
      let result = outcome(JSONValue.self, text)
      XCTAssertEqual(result, reference(JSONValue.self, text), text)
      if case .value = result {
        kinds[true, default: 0] += 1
      } else {
        kinds[false, default: 0] += 1
      }
    }
    // Both sides of the comparison were exercised: documents read and documents refused.
    XCTAssertGreaterThan(kinds[true, default: 0], 1000)
    XCTAssertGreaterThan(kinds[false, default: 0], 500)
  }

  func testRandomValuesOfDecodableTypesDecodeAlike() throws {
    var random = RandomJSON(seed: 37)
    var texts = RandomText(seed: 38)
    var (decoded, refused) = (0, 0)
    for round in 0..<600 {
      let book = Book.random(&random)
      var document = try JSONValueEncoder().encode(book)
      for _ in 0..<(round % 4) { document = random.mutated(document) }
      let text = texts.document(document)
      assertSameOutcome(Book.self, text)
      if case .value = outcome(Book.self, text) { decoded += 1 } else { refused += 1 }
      assertSameOutcome(Book?.self, text)
      assertSameOutcome(Manual.self, text)
      assertSameOutcome([Level].self, texts.document(document["levels"] ?? document))
      assertSameOutcome(
        Event.self, texts.document(document["events"]?.arrayValue?.first ?? document))
    }
    // Both sides of the comparison were exercised: values read and values refused.
    XCTAssertGreaterThan(decoded, 100)
    XCTAssertGreaterThan(refused, 150)
  }

  private func assertSameOutcome<T: Decodable & Equatable>(
    _ type: T.Type, _ text: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(outcome(T.self, text), reference(T.self, text), text, file: file, line: line)
  }
}

/// What a decode gave: its value, or its error as a person reads it.
private enum Outcome<T: Equatable>: Equatable {
  case value(T)
  case error(String)
}

private func outcome<T: Decodable & Equatable>(
  _ type: T.Type, _ text: String, maxDepth: Int = JSONParser.defaultMaxDepth
) -> Outcome<T> {
  do {
    return .value(try JSONBytesDecoder(maxDepth: maxDepth).decode(T.self, from: Array(text.utf8)))
  } catch {
    return .error("\(error)")
  }
}

private func reference<T: Decodable & Equatable>(
  _ type: T.Type, _ text: String, maxDepth: Int = JSONParser.defaultMaxDepth
) -> Outcome<T> {
  do {
    return .value(
      try JSONValueDecoder().decode(T.self, from: JSONParser.parse(text, maxDepth: maxDepth)))
  } catch {
    return .error("\(error)")
  }
}

/// JSON text for documents, spelled in the ways JSON allows (whitespace, escapes, number forms,
/// repeated keys), and broken at random.
private struct RandomText {
  var generator: SeededGenerator

  init(seed: UInt64) {
    generator = SeededGenerator(seed: seed)
  }

  mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &generator) < probability
  }

  mutating func space() -> String {
    chance(0.8) ? "" : [" ", "\n", "\t ", "\r\n  "].randomElement(using: &generator)!
  }

  mutating func string(_ string: String) -> String {
    var text = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case _ where scalar.value < 0x20 || chance(0.1):
        // Escaped, as JSON allows any character to be (astral ones as a surrogate pair).
        for unit in String(scalar).utf16 { text += "\\u" + hex(unit) }
      default: text.unicodeScalars.append(scalar)
      }
    }
    return text + "\""
  }

  private func hex(_ unit: UInt16) -> String {
    let digits = String(unit, radix: 16)
    return String(repeating: "0", count: 4 - digits.count) + digits
  }

  mutating func document(_ value: JSONValue) -> String {
    space() + text(value) + space()
  }

  private mutating func text(_ value: JSONValue) -> String {
    switch value {
    case .int(let integer) where chance(0.2): return "\(integer).0"
    case .number(let number) where !"\(number)".contains("e") && chance(0.2):
      return "\(number)E0"
    case .string(let string): return self.string(string)
    case .array(let elements):
      return "[" + elements.map { space() + text($0) + space() }.joined(separator: ",") + "]"
    case .object(let object):
      var members = object.map { (key: $0.key, value: $0.value) }
      if let first = members.first, chance(0.05) { members.append(first) }
      return "{"
        + members.map { space() + string($0.key) + space() + ":" + space() + text($0.value) }
        .joined(separator: ",") + "}"
    default: return value.jsonString
    }
  }

  /// `text`, sometimes with a byte dropped, changed or added.
  mutating func mangled(_ text: String) -> String {
    var bytes = Array(text.utf8)
    guard !bytes.isEmpty, chance(0.5) else { return text }
    let index = Int.random(in: 0..<bytes.count, using: &generator)
    let noise = Array(#"{}[],:"\ e-.01tfnu"#.utf8) + [0x80, 0xC3, 0x01]
    switch Int.random(in: 0...2, using: &generator) {
    case 0: bytes.remove(at: index)
    case 1: bytes[index] = noise.randomElement(using: &generator)!
    default: bytes.insert(noise.randomElement(using: &generator)!, at: index)
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

// A family of types that uses every kind of container and scalar the decoders read.

private struct Level: Codable, Equatable {
  var price: Double
  var size: Float
  var count: Int8?
}

private enum Side: String, Codable, Equatable {
  case ask, bid
}

private enum Event: Codable, Equatable {
  case tick(Int)
  case trade(price: Double, side: Side)
  case reset
}

private struct Book: Codable, Equatable {
  var code: String
  var timestamp: Int
  var levels: [Level]
  var side: Side?
  var tags: [String: UInt16]
  var ids: [Int]
  var names: [String]?
  var extra: JSONValue
  var flags: [Bool]
  var events: [Event]
  var nested: [[Int64]]
  var maybe: Level?

  static func random(_ random: inout RandomJSON) -> Book {
    func level() -> Level {
      Level(
        price: random.double(), size: Float(random.int(in: -100...100)) / 4,
        count: random.chance(0.5) ? Int8(random.int(in: -128...127)) : nil)
    }
    return Book(
      code: random.string(), timestamp: random.int(in: 0...Int.max),
      levels: (0..<random.int(in: 0...4)).map { _ in level() },
      side: random.chance(0.5) ? (random.chance(0.5) ? .ask : .bid) : nil,
      tags: Dictionary(
        (0..<random.int(in: 0...3)).map { _ in (random.key(), UInt16(random.int(in: 0...65535))) },
        uniquingKeysWith: { $1 }),
      ids: (0..<random.int(in: 0...3)).map { _ in random.int(in: -1000...1000) },
      names: random.chance(0.5) ? (0..<random.int(in: 0...3)).map { _ in random.string() } : nil,
      extra: random.value(depth: 2), flags: [random.chance(0.5)],
      events: (0..<random.int(in: 0...3)).map { _ in
        switch random.int(in: 0...2) {
        case 0: .tick(random.int(in: -5...5))
        case 1: .trade(price: random.double(), side: .bid)
        default: .reset
        }
      },
      nested: [[Int64(random.int(in: -9...9))], []],
      maybe: random.chance(0.5) ? level() : nil)
  }
}

/// Reads `Book`'s documents with the containers' other requirements: `allKeys`, `contains`,
/// `decodeNil`, nested containers and super decoders.
private struct Manual: Decodable, Equatable {
  var keys: [String]
  var hasSide: Bool
  var sideIsNull: Bool
  var firstPrice: Double?
  var ids: [Int]
  var superCode: String
  var superFirstLevel: Level?

  struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: AnyKey.self)
    keys = container.allKeys.map(\.stringValue)
    let side = AnyKey(stringValue: "side")
    hasSide = container.contains(side)
    sideIsNull = try container.decodeNil(forKey: side)
    var levels = try container.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "levels"))
    if !levels.isAtEnd, try !levels.decodeNil() {
      let level = try levels.nestedContainer(keyedBy: AnyKey.self)
      firstPrice = try level.decodeIfPresent(Double.self, forKey: AnyKey(stringValue: "price"))
    }
    var ids = try container.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "ids"))
    self.ids = []
    while !ids.isAtEnd { self.ids.append(try ids.decode(Int.self)) }
    superCode = try container.superDecoder(forKey: AnyKey(stringValue: "code"))
      .singleValueContainer().decode(String.self)
    var again = try container.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "levels"))
    superFirstLevel = again.isAtEnd ? nil : try Level(from: again.superDecoder())
  }
}

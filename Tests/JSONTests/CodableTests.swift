import Foundation
import JSON
import XCTest

private struct CounterState: Codable, Equatable {
  var count: Int
  var favoritePrimes: [Int]
  var alertNthPrime: Int?
  var isNthPrimeButtonDisabled: Bool
  var user: User?
  var ratio: Double
  var title: String
  var tags: [String: Int]
}

private struct User: Codable, Equatable {
  var name: String
  var nickname: String?
  var age: UInt8
}

private enum Mode: Codable, Equatable {
  case idle
  case loading(progress: Double?)
  case loaded([Int], note: String)
  case failed(String)
}

private struct AllScalars: Codable, Equatable {
  var int8: Int8?, int16: Int16?, int32: Int32?, int64: Int64?
  var uint: UInt?, uint8: UInt8?, uint16: UInt16?, uint32: UInt32?, uint64: UInt64?
  var float: Float?, double: Double?, bool: Bool?, string: String?, int: Int?
}

private class Animal: Codable {
  var legs: Int
  init(legs: Int) { self.legs = legs }
}

private final class Dog: Animal {
  var name: String
  init(name: String) {
    self.name = name
    super.init(legs: 4)
  }

  private enum CodingKeys: String, CodingKey { case name }

  required init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    name = try container.decode(String.self, forKey: .name)
    try super.init(from: container.superDecoder())
  }

  override func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try super.encode(to: container.superEncoder())
  }
}

/// Writes through nested containers in an interleaved order, as hand-written code may.
private struct Interleaved: Encodable {
  func encode(to encoder: any Encoder) throws {
    var root = encoder.container(keyedBy: JSONCodingKey.self)
    var first = root.nestedContainer(keyedBy: JSONCodingKey.self, forKey: "first")
    var list = root.nestedUnkeyedContainer(forKey: "list")
    try root.encode(1, forKey: "after")
    try first.encode("late", forKey: "x")
    try list.encode(true)
    var inner = list.nestedContainer(keyedBy: JSONCodingKey.self)
    try list.encodeNil()
    try inner.encode(2, forKey: "y")
  }
}

private struct JSONCodingKey: CodingKey, ExpressibleByStringLiteral {
  let stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
  init(stringLiteral value: String) { stringValue = value }
}

final class CodableTests: XCTestCase {
  private let state = CounterState(
    count: 7, favoritePrimes: [2, 3], alertNthPrime: nil, isNthPrimeButtonDisabled: false,
    user: User(name: "ada", nickname: nil, age: 36), ratio: 0.25, title: "Counter",
    tags: ["b": 2, "a": 1, "c": 3])

  func testEncodesWithExplicitNullsInDeclarationOrder() throws {
    let value = try JSONValueEncoder().encode(state)
    XCTAssertEqual(
      value.jsonString,
      #"{"count":7,"favoritePrimes":[2,3],"alertNthPrime":null,"isNthPrimeButtonDisabled":false,"#
        + #""user":{"name":"ada","nickname":null,"age":36},"ratio":0.25,"title":"Counter","tags":{"a":1,"b":2,"c":3}}"#
    )
  }

  func testRoundTrips() throws {
    try assertRoundTrip(state)
    var other = state
    other.user = nil
    other.alertNthPrime = 11
    try assertRoundTrip(other)
    for mode in [
      Mode.idle, .loading(progress: nil), .loading(progress: 0.5), .loaded([1, 2], note: "ok"),
      .failed("x"),
    ] {
      try assertRoundTrip(mode)
    }
    try assertRoundTrip([Mode.idle, .failed("y")])
    try assertRoundTrip([1, nil, 3] as [Int?])
    try assertRoundTrip(["k": [1.5, -2]] as [String: [Double]])
    try assertRoundTrip([3: "c", 1: "a", 20: "t"] as [Int: String])
    try assertRoundTrip(Optional<Int>.none)
    try assertRoundTrip(JSONValue.object(["free": ["form", 1, nil]]))
    let scalars = AllScalars(
      int8: -128, int16: .max, int32: .min, int64: .max, uint: UInt(Int.max), uint8: 255, uint16: 7,
      uint32: .max, uint64: 1 << 62, float: 0.1, double: 1e-300, bool: true, string: "é\n",
      int: .min)
    try assertRoundTrip(scalars)
    try assertRoundTrip(AllScalars())
  }

  func testEnumShapeIsTheSynthesizedOne() throws {
    XCTAssertEqual(try JSONValueEncoder().encode(Mode.idle).jsonString, #"{"idle":{}}"#)
    XCTAssertEqual(
      try JSONValueEncoder().encode(Mode.loading(progress: nil)).jsonString,
      #"{"loading":{"progress":null}}"#)
    XCTAssertEqual(
      try JSONValueEncoder().encode(Mode.loaded([1], note: "n")).jsonString,
      #"{"loaded":{"_0":[1],"note":"n"}}"#)
  }

  func testScalarsEncodeAsExpected() throws {
    let encoder = JSONValueEncoder()
    XCTAssertEqual(try encoder.encode(Float(0.1)).jsonString, "0.1")
    XCTAssertEqual(try encoder.encode(Double.nan), .null)
    XCTAssertEqual(try encoder.encode(Float.infinity), .null)
    XCTAssertEqual(try encoder.encode(UInt64(Int.max)), .int(.max))
    XCTAssertEqual(try encoder.encode(Int8(-3)), .int(-3))
    XCTAssertEqual(try encoder.encode("s"), "s")
    XCTAssertEqual(try encoder.encode([true]), [true])
  }

  func testUnsignedValuesBeyondIntAreRejected() {
    XCTAssertThrowsError(try JSONValueEncoder().encode(AllScalars(uint64: .max))) { error in
      guard case .invalidValue(_, let context) = error as? EncodingError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(
        context.debugDescription, "UInt64 value 18446744073709551615 is larger than Int.max")
      XCTAssertEqual(context.codingPath.map(\.stringValue), ["uint64"])
    }
    XCTAssertThrowsError(try JSONValueEncoder().encode([UInt.max]))
  }

  func testDictionariesAreSorted() throws {
    let words = Dictionary(uniqueKeysWithValues: (0..<50).map { ("w\($0)", $0) })
    XCTAssertEqual(try JSONValueEncoder().encode(words).objectValue?.keys, words.keys.sorted())
    let numbers = Dictionary(uniqueKeysWithValues: (0..<30).map { ($0 * 7 % 30, $0) })
    XCTAssertEqual(
      try JSONValueEncoder().encode(numbers).objectValue?.keys, (0..<30).map(String.init))
  }

  func testClassHierarchiesUseSuper() throws {
    let value = try JSONValueEncoder().encode(Dog(name: "rex"))
    XCTAssertEqual(value, ["name": "rex", "super": ["legs": 4]])
    let dog = try JSONValueDecoder().decode(Dog.self, from: value)
    XCTAssertEqual(dog.name, "rex")
    XCTAssertEqual(dog.legs, 4)
  }

  func testNestedContainersWrittenOutOfOrder() throws {
    XCTAssertEqual(
      try JSONValueEncoder().encode(Interleaved()).jsonString,
      #"{"first":{"x":"late"},"list":[true,{"y":2},null],"after":1}"#)
  }

  func testJSONValueWorksWithOtherCoders() throws {
    struct Wrapper: Codable, Equatable { var payload: JSONValue }
    let value: JSONValue = ["a": [1, 2.5, "x", nil, true, -7], "b": [:], "c": "é"]
    // Foundation's coders go through `JSONValue`'s own `Codable` conformance.
    let data = try Foundation.JSONEncoder().encode(Wrapper(payload: value))
    XCTAssertEqual(try JSONParser.parse(Array(data)), ["payload": value])
    let decoded = try Foundation.JSONDecoder().decode(Wrapper.self, from: data)
    XCTAssertEqual(decoded.payload, value)
    guard case .int = decoded.payload["a"]?.arrayValue?[0] else {
      return XCTFail("integers should stay integers")
    }
    // Ours take it as it is.
    try assertRoundTrip(Wrapper(payload: value))
  }

  func testStrictDecoding() throws {
    assertDecodingFails(Int.self, from: "7", "expected an integer, got \"7\"")
    assertDecodingFails(Int.self, from: 1.5, "expected an integer, got 1.5")
    assertDecodingFails(Int.self, from: nil, "expected an integer, got null")
    assertDecodingFails(Int8.self, from: 300, "number out of range for Int8: 300")
    assertDecodingFails(UInt.self, from: -1, "number out of range for UInt: -1")
    assertDecodingFails(Int.self, from: .number(1e19), "number out of range for Int: 1e+19")
    assertDecodingFails(
      Int.self, from: try JSONParser.parse(Array("-9223372036854775809".utf8)),
      "number out of range for Int: -9.223372036854776e+18")
    assertDecodingFails(Bool.self, from: 1, "expected a boolean, got 1")
    assertDecodingFails(String.self, from: true, "expected a string, got true")
    assertDecodingFails(Double.self, from: "1", "expected a number, got \"1\"")
    assertDecodingFails(Float.self, from: 1e300, "number out of range for Float: 1e+300")
    assertDecodingFails([Int].self, from: [1, "2"], "/1: expected an integer, got \"2\"")
    assertDecodingFails([Int].self, from: ["a": 1], "expected an array, got an object")
    assertDecodingFails(Int?.self, from: "x", "expected an integer or null, got \"x\"")
    assertDecodingFails(User.self, from: [1], "expected an object, got an array")
    XCTAssertEqual(try JSONValueDecoder().decode(Int.self, from: 2.0), 2)
    XCTAssertEqual(try JSONValueDecoder().decode(Double.self, from: 2), 2)
    XCTAssertEqual(
      try JSONValueDecoder().decode(UInt64.self, from: .number(9_223_372_036_854_775_808)), 1 << 63)
    XCTAssertEqual(try JSONValueDecoder().decode(Int?.self, from: nil), nil)
  }

  func testDecodingErrorsNameTheJSONPointer() throws {
    var value = try JSONValueEncoder().encode(state).objectValue!
    value["user"] = ["name": "ada", "nickname": 3, "age": 36]
    assertDecodingFails(
      CounterState.self, from: .object(value), "/user/nickname: expected a string or null, got 3"
    ) {
      guard case .typeMismatch = $0 else { return XCTFail("\($0)") }
    }
    value["user"] = ["name": "ada", "age": 300]
    assertDecodingFails(
      CounterState.self, from: .object(value), "/user/age: number out of range for UInt8: 300")
    value["user"] = ["nickname": nil, "age": 3]
    assertDecodingFails(CounterState.self, from: .object(value), #"/user: missing key "name""#) {
      guard case .keyNotFound(let key, _) = $0 else { return XCTFail("\($0)") }
      XCTAssertEqual(key.stringValue, "name")
    }
    value["user"] = nil
    value["count"] = nil
    assertDecodingFails(CounterState.self, from: .object(value), #"missing key "count""#)
    value["count"] = nil
    value["count"] = .null
    assertDecodingFails(
      CounterState.self, from: .object(value), "/count: expected an integer, got null"
    ) {
      guard case .valueNotFound = $0 else { return XCTFail("\($0)") }
    }
    value["count"] = 1
    value["favoritePrimes"] = [2, "3"]
    assertDecodingFails(
      CounterState.self, from: .object(value), "/favoritePrimes/1: expected an integer, got \"3\"")
    value["favoritePrimes"] = []
    value["tags"] = ["a": "x"]
    assertDecodingFails(
      CounterState.self, from: .object(value), "/tags/a: expected an integer, got \"x\"")
    assertDecodingFails(
      [Mode].self, from: [["loaded": ["_0": [1], "note": 2]]],
      "/0/loaded/note: expected a string, got 2")
  }

  func testOptionalFieldsAcceptMissingOrNull() throws {
    let decoded = try JSONValueDecoder().decode(User.self, from: ["name": "x", "age": 1])
    XCTAssertEqual(decoded, User(name: "x", nickname: nil, age: 1))
    XCTAssertEqual(
      try JSONValueDecoder().decode(User.self, from: ["name": "x", "age": 1, "nickname": nil]),
      decoded)
  }

  private func assertRoundTrip<T: Codable & Equatable>(
    _ value: T, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let encoded = try JSONValueEncoder().encode(value)
    XCTAssertEqual(
      try JSONValueDecoder().decode(T.self, from: encoded), value, file: file, line: line)
    // And through text, so that nothing relies on in-memory shapes.
    let reparsed = try JSONParser.parse(encoded.jsonString)
    XCTAssertEqual(
      try JSONValueDecoder().decode(T.self, from: reparsed), value, file: file, line: line)
  }

  private func assertDecodingFails<T: Decodable>(
    _ type: T.Type, from value: JSONValue, _ message: String,
    file: StaticString = #filePath, line: UInt = #line, _ check: (DecodingError) -> Void = { _ in }
  ) {
    XCTAssertThrowsError(try JSONValueDecoder().decode(T.self, from: value), file: file, line: line)
    { error in
      guard let error = error as? DecodingError else {
        return XCTFail("\(error)", file: file, line: line)
      }
      XCTAssertEqual(error.contextMessage, message, file: file, line: line)
      check(error)
    }
  }
}

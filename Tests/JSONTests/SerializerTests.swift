import ComposableTestSupport
@_spi(Hosting) import JSON
import XCTest

final class SerializerTests: XCTestCase {
  func testCompactOutputInInsertionOrder() {
    let value: JSONValue = ["z": 1, "a": [true, false, nil], "m": ["x": "y"], "e": [], "o": [:]]
    XCTAssertEqual(value.jsonString, #"{"z":1,"a":[true,false,null],"m":{"x":"y"},"e":[],"o":{}}"#)
  }

  func testStringEscapes() {
    XCTAssertEqual(JSONValue.string("a\"b\\c/d").jsonString, #""a\"b\\c/d""#)
    XCTAssertEqual(JSONValue.string("\u{8}\u{C}\n\r\t").jsonString, #""\b\f\n\r\t""#)
    XCTAssertEqual(
      JSONValue.string("\u{0}\u{1}\u{1F}\u{7F}").jsonString, "\"\\u0000\\u0001\\u001f\u{7F}\"")
    XCTAssertEqual(JSONValue.string("é😀日本").jsonString, "\"é😀日本\"")
    XCTAssertEqual(JSONValue.string("").jsonString, #""""#)
    // Long strings go through the word-at-a-time scan; escapes at every position of a word.
    for position in 0..<20 {
      var characters = Array(repeating: Character("x"), count: 20)
      characters[position] = "\n"
      let expected = "\"" + String(characters).replacingNewlines() + "\""
      XCTAssertEqual(JSONValue.string(String(characters)).jsonString, expected)
    }
  }

  func testKeysAreEscapedToo() {
    XCTAssertEqual(JSONValue.object(["a\"b": 1, "\n": 2]).jsonString, #"{"a\"b":1,"\n":2}"#)
  }

  func testIntegers() {
    for value in [
      0, 1, -1, 9, 10, 99, 100, 12345, -12345, Int.max, Int.min, Int.max - 1, Int.min + 1,
    ] {
      XCTAssertEqual(JSONValue.int(value).jsonString, String(value))
    }
    var buffer: [UInt8] = Array("x".utf8)
    JSONWriter.writeInt(-907, into: &buffer)
    XCTAssertEqual(String(decoding: buffer, as: UTF8.self), "x-907")
    for exponent in 0..<19 {
      var power = 1
      for _ in 0..<exponent { power *= 10 }
      XCTAssertEqual(JSONValue.int(power).jsonString, String(power))
      XCTAssertEqual(JSONValue.int(power - 1).jsonString, String(power - 1))
    }
  }

  func testIntegersAsTheStandardLibraryPrintsThem() {
    var values = Array(-10_000...10_000)
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      // Every magnitude equally often, rather than mostly 19 digits.
      values.append(Int.random(in: .min ... .max, using: &generator) >> Int.random(in: 0..<64))
    }
    for value in values {
      var buffer: [UInt8] = [UInt8(ascii: "[")]
      JSONWriter.writeInt(value, into: &buffer)
      XCTAssertEqual(String(decoding: buffer, as: UTF8.self), "[\(value)")
    }
  }

  func testDoubles() {
    XCTAssertEqual(JSONValue.number(0.1).jsonString, "0.1")
    XCTAssertEqual(JSONValue.number(1.0).jsonString, "1.0")
    XCTAssertEqual(JSONValue.number(1e-5).jsonString, "1e-05")
    XCTAssertEqual(JSONValue.number(-0.0).jsonString, "-0.0")
    XCTAssertEqual(JSONValue.number(1e300).jsonString, "1e+300")
    XCTAssertEqual(JSONValue.number(.nan).jsonString, "null")
    XCTAssertEqual(JSONValue.number(.infinity).jsonString, "null")
    XCTAssertEqual(JSONValue.number(-.infinity).jsonString, "null")
  }

  func testWriterHelpers() {
    var buffer: [UInt8] = []
    buffer.append(UInt8(ascii: "{"))
    JSONWriter.writeKey("type", isFirst: true, into: &buffer)
    JSONWriter.writeString("ready", into: &buffer)
    JSONWriter.writeKey("line\n", isFirst: false, into: &buffer)
    JSONWriter.writeInt(3, into: &buffer)
    JSONWriter.writeKey("ratio", isFirst: false, into: &buffer)
    JSONWriter.writeDouble(0.25, into: &buffer)
    buffer.append(UInt8(ascii: "}"))
    XCTAssertEqual(
      String(decoding: buffer, as: UTF8.self), #"{"type":"ready","line\n":3,"ratio":0.25}"#)
    XCTAssertEqual(JSONValue.int(7).serialized, Array("7".utf8))
  }

  func testRoundTripsOfRandomValues() throws {
    var random = RandomJSON(seed: 1)
    for _ in 0..<2000 {
      let value = random.value()
      let text = value.jsonString
      let parsed = try JSONParser.parse(text)
      XCTAssertEqual(parsed, value, text)
      // Serialization is stable: the same value prints the same text again.
      XCTAssertEqual(parsed.jsonString, text)
    }
  }

  func testEveryFiniteDoubleRoundTrips() throws {
    var generator = SeededGenerator(seed: 3)
    for _ in 0..<20_000 {
      let double = Double(bitPattern: generator.next())
      guard double.isFinite else { continue }
      let parsed = try JSONParser.parse(JSONValue.number(double).jsonString)
      guard case .number(let back) = parsed else {
        return XCTFail("\(double) did not read back as a double")
      }
      XCTAssertEqual(back.bitPattern, double.bitPattern, "\(double)")
    }
  }

  /// The writer prints a double without a `String`, by the function behind `description`:
  /// the text is `description`'s, for every kind of finite double, and follows what the buffer
  /// held before it.
  func testDoublesPrintAsTheirDescription() {
    var generator = SeededGenerator(seed: 27)
    var samples: [Double] = [
      0, -0.0, 1, -1, 0.1, 1e-5, .leastNonzeroMagnitude, -.leastNormalMagnitude,
      .greatestFiniteMagnitude,
      -.greatestFiniteMagnitude, 95_142_500.0, 0.08809332, 1e15, 1e16, 0x1p53 + 2,
    ]
    for _ in 0..<20_000 {
      let bits = Double(bitPattern: generator.next())
      let cents = Double(Int(truncatingIfNeeded: generator.next() % 100_000_000_000)) / 100
      samples += [bits, cents, Double(generator.next() % 300_000_000) / 100_000_000]
    }
    for double in samples where double.isFinite {
      var buffer = Array("[".utf8)
      JSONWriter.writeDouble(double, into: &buffer)
      XCTAssertEqual(String(decoding: buffer, as: UTF8.self), "[" + double.description)
    }
  }

  /// An error message quotes a value in a few dozen characters, whatever its size.
  func testAnExcerptIsShortWhateverTheValue() {
    XCTAssertEqual(JSONValue.int(-7).excerpt, "-7")
    XCTAssertEqual(JSONValue.string("a\"b").excerpt, #""a\"b""#)
    let long = String(repeating: "é", count: 1_000_000)
    XCTAssertEqual(
      JSONValue.string(long).excerpt,
      "\"" + String(repeating: "é", count: JSONValue.excerptCharacters) + "…\" (2000000 bytes)")
    XCTAssertEqual(JSONValue.array([1, 2]).excerpt, "an array of 2 elements")
    XCTAssertEqual(
      JSONValue.object(["a": .array([.string(long)])]).excerpt, "an object of 1 member")
  }
}

extension String {
  fileprivate func replacingNewlines() -> String {
    var result = ""
    for character in self {
      result += character == "\n" ? "\\n" : String(character)
    }
    return result
  }
}

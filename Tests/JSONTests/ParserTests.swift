import ComposableTestSupport
import JSON
import XCTest

final class ParserTests: XCTestCase {
  func testValidDocuments() throws {
    let cases: [(String, JSONValue)] = [
      ("null", .null),
      ("true", true),
      ("false", false),
      ("0", 0),
      ("-1", -1),
      ("42", 42),
      ("1.5", 1.5),
      ("1.5e3", .number(1500)),
      ("1E-2", .number(0.01)),
      ("1e+2", .number(100)),
      ("\"\"", ""),
      ("\"abc\"", "abc"),
      ("[]", []),
      ("{}", [:]),
      (" \t\r\n[ 1 , 2 ]\n ", [1, 2]),
      ("{\"a\":{\"b\":[null,true,\"x\"]}}", ["a": ["b": [nil, true, "x"]]]),
      ("[[[]]]", [[[]]]),
      ("{\"\":1}", ["": 1]),
    ]
    for (text, expected) in cases {
      XCTAssertEqual(try JSONParser.parse(text), expected, text)
    }
  }

  func testInvalidDocuments() {
    let cases: [(String, JSONParseError.Kind)] = [
      ("", .invalidJSON),
      ("   ", .invalidJSON),
      ("nul", .invalidJSON),
      ("True", .invalidJSON),
      ("NaN", .invalidJSON),
      ("Infinity", .invalidJSON),
      ("-Infinity", .invalidJSON),
      ("[1,]", .invalidJSON),
      ("{\"a\":1,}", .invalidJSON),
      ("[1 2]", .invalidJSON),
      ("{\"a\" 1}", .invalidJSON),
      ("{a:1}", .invalidJSON),
      ("{'a':1}", .invalidJSON),
      ("[1]x", .invalidJSON),
      ("1 2", .invalidJSON),
      ("// c\n1", .invalidJSON),
      ("/* c */ 1", .invalidJSON),
      ("01", .invalidJSON),
      ("-01", .invalidJSON),
      ("1.", .invalidJSON),
      (".5", .invalidJSON),
      ("1e", .invalidJSON),
      ("1e+", .invalidJSON),
      ("+1", .invalidJSON),
      ("-", .invalidJSON),
      ("0x10", .invalidJSON),
      ("\"abc", .invalidJSON),
      ("\"a\nb\"", .invalidJSON),
      ("\"a\tb\"", .invalidJSON),
      ("\"\\x\"", .invalidJSON),
      ("\"\\u12\"", .invalidJSON),
      ("\"\\u12G4\"", .invalidJSON),
      ("\"\\uD800\"", .invalidJSON),
      ("\"\\uDC00\"", .invalidJSON),
      ("\"\\uD800\\u0041\"", .invalidJSON),
      ("\"\\uD800x\"", .invalidJSON),
      ("{\"a\":1,\"a\":2}", .invalidJSON),
      ("[", .invalidJSON),
      ("{", .invalidJSON),
      ("{\"a\"", .invalidJSON),
      ("]", .invalidJSON),
      ("\u{FEFF}1", .invalidJSON),
      ("1e400", .numberOutOfRange),
      ("-1e400", .numberOutOfRange),
      ("123456789012345678901234567890e300", .numberOutOfRange),
      ("1e-400", .numberOutOfRange),
      ("-0.0000001e-400", .numberOutOfRange),
      ("0.00000000000000000000000000001e-330", .numberOutOfRange),
    ]
    for (text, kind) in cases {
      XCTAssertThrowsError(try JSONParser.parse(text), text.debugDescription) { error in
        XCTAssertEqual((error as? JSONParseError)?.kind, kind, text.debugDescription)
      }
    }
  }

  func testErrorsNameTheProblemAndOffset() {
    XCTAssertEqual(
      parseError("{\"store\" 1}"),
      JSONParseErrorSummary(
        .invalidJSON, 9, "expected ':' after object key, found character '1' at byte 9"))
    XCTAssertEqual(
      parseError("[1,]"),
      JSONParseErrorSummary(.invalidJSON, 3, "unexpected character ']' at byte 3"))
    XCTAssertEqual(
      parseError("{\"a\":1,\"a\":2}"),
      JSONParseErrorSummary(.invalidJSON, 7, "duplicate key \"a\" at byte 7"))
    XCTAssertEqual(
      parseError("[1] x"),
      JSONParseErrorSummary(.invalidJSON, 4, "unexpected character 'x' after the value at byte 4"))
    XCTAssertEqual(
      parseError("\"ab\ncd\""),
      JSONParseErrorSummary(
        .invalidJSON, 3, "unescaped control character U+000A in string at byte 3"))
    XCTAssertEqual(
      parseError("[1e400]"),
      JSONParseErrorSummary(.numberOutOfRange, 1, "number 1e400 does not fit a double at byte 1"))
    XCTAssertEqual(
      parseError("[1e-400]"),
      JSONParseErrorSummary(
        .numberOutOfRange, 1,
        "number 1e-400 is too small for a double (it would read as 0) at byte 1"))
    XCTAssertEqual(
      parseError("{\"a\":[tru]}"),
      JSONParseErrorSummary(.invalidJSON, 6, "expected 'true' at byte 6"))
    XCTAssertEqual(
      parseError("[1,"), JSONParseErrorSummary(.invalidJSON, 3, "unexpected end of input at byte 3")
    )
  }

  func testNumbers() throws {
    XCTAssertEqual(try JSONParser.parse("9223372036854775807"), .int(.max))
    XCTAssertEqual(try JSONParser.parse("-9223372036854775808"), .int(.min))
    XCTAssertTrue(isInt(try JSONParser.parse("9223372036854775807")))
    XCTAssertTrue(isInt(try JSONParser.parse("-9223372036854775808")))
    // One past the range of Int: still a number, as a double.
    let tooBig = try JSONParser.parse("9223372036854775808")
    XCTAssertFalse(isInt(tooBig))
    XCTAssertEqual(tooBig, .number(9_223_372_036_854_775_808))
    XCTAssertEqual(try JSONParser.parse("-9223372036854775809"), .number(-0x1p63))
    XCTAssertEqual(
      try JSONParser.parse("18446744073709551616"), .number(18_446_744_073_709_551_616))
    // "-0" keeps its sign as a double and still equals 0.
    let negativeZero = try JSONParser.parse("-0")
    XCTAssertEqual(negativeZero, 0)
    guard case .number(let zero) = negativeZero else { return XCTFail("-0 should be a double") }
    XCTAssertEqual(zero.sign, .minus)
    XCTAssertEqual(try JSONParser.parse("1.5e3"), .number(1500))
    XCTAssertFalse(isInt(try JSONParser.parse("1.0")))
    XCTAssertFalse(isInt(try JSONParser.parse("1e2")))
    XCTAssertEqual(try JSONParser.parse("0.1"), .number(0.1))
    // Zero written with any exponent is zero; a smaller magnitude than the least double is
    // refused (testInvalidDocuments).
    XCTAssertEqual(try JSONParser.parse("0e-400"), .number(0))
    XCTAssertEqual(try JSONParser.parse("-0.000e-999"), .number(-0.0))
    XCTAssertEqual(
      try JSONParser.parse("2.2250738585072014e-308"), .number(2.2250738585072014e-308))
    XCTAssertEqual(try JSONParser.parse("5e-324"), .number(.leastNonzeroMagnitude))
    XCTAssertEqual(try JSONParser.parse("1.7976931348623157e308"), .number(1.7976931348623157e308))
    // Long mantissas and large exponents take the slow path and must still round correctly.
    XCTAssertEqual(try JSONParser.parse("0.30000000000000004441"), .number(0.30000000000000004))
    XCTAssertEqual(
      try JSONParser.parse("123456789012345678901234567890"), .number(1.2345678901234568e29))
    XCTAssertEqual(try JSONParser.parse("1e23"), .number(1e23))
    XCTAssertEqual(try JSONParser.parse("9007199254740993"), .int(9_007_199_254_740_993))
    XCTAssertEqual(try JSONParser.parse("9007199254740993.0"), .number(9_007_199_254_740_992))
  }

  func testFastDoublePathAgreesWithTheStandardLibrary() throws {
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<5000 {
      let mantissa = UInt64.random(in: 0..<(1 << 53), using: &generator)
      let exponent = Int.random(in: -30...30, using: &generator)
      let text = "\(mantissa)e\(exponent)"
      XCTAssertEqual(try JSONParser.parse(text), .number(Double(text)!), text)
    }
  }

  func testStrings() throws {
    XCTAssertEqual(try JSONParser.parse(#""a\"b\\c\/d""#), "a\"b\\c/d")
    XCTAssertEqual(try JSONParser.parse(#""\b\f\n\r\t""#), "\u{8}\u{C}\n\r\t")
    XCTAssertEqual(try JSONParser.parse(#""\u0041\u00e9\u20AC""#), "Aé€")
    XCTAssertEqual(try JSONParser.parse(#""\ud83d\ude00""#), "😀")
    XCTAssertEqual(try JSONParser.parse(#""\u0000""#), "\u{0}")
    XCTAssertEqual(try JSONParser.parse("\"héllo wörld, 日本語 😀\""), "héllo wörld, 日本語 😀")
    XCTAssertEqual(try JSONParser.parse("\"\u{7F}\""), "\u{7F}")
    // Escapes after a long plain run, and plain text after escapes.
    XCTAssertEqual(
      try JSONParser.parse(#""abcdefghijklmnop\nqrstuvwxyz0123456789""#),
      "abcdefghijklmnop\nqrstuvwxyz0123456789")
  }

  func testUTF8Validation() {
    let invalid: [([UInt8], Int)] = [
      ([0x80], 1),  // lone continuation byte
      ([0xC0, 0xAF], 1),  // overlong '/'
      ([0xC1, 0xBF], 1),  // overlong
      ([0xE0, 0x80, 0xAF], 1),  // overlong three-byte form
      ([0xF0, 0x80, 0x80, 0xAF], 1),  // overlong four-byte form
      ([0xED, 0xA0, 0x80], 1),  // U+D800 encoded in UTF-8
      ([0xED, 0xBF, 0xBF], 1),  // U+DFFF encoded in UTF-8
      ([0xF4, 0x90, 0x80, 0x80], 1),  // U+110000
      ([0xF5, 0x80, 0x80, 0x80], 1),  // lead byte beyond U+10FFFF
      ([0xFF], 1),
      ([0xC3], 1),  // truncated before the closing quote
      ([0xE2, 0x82], 1),  // truncated
      ([0xE2, 0x28, 0xA1], 1),  // bad continuation
      ([0x61, 0x62, 0xC3, 0x28], 3),
    ]
    for (content, offset) in invalid {
      let document = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
      XCTAssertThrowsError(try JSONParser.parse(document), "\(content)") { error in
        let parseError = error as? JSONParseError
        XCTAssertEqual(parseError?.kind, .invalidUTF8, "\(content)")
        XCTAssertEqual(parseError?.offset, offset, "\(content)")
      }
    }
    let valid: [[UInt8]] = [
      [0xC2, 0x80],  // U+0080
      [0xDF, 0xBF],  // U+07FF
      [0xE0, 0xA0, 0x80],  // U+0800
      [0xED, 0x9F, 0xBF],  // U+D7FF
      [0xEE, 0x80, 0x80],  // U+E000
      [0xEF, 0xBF, 0xBF],  // U+FFFF
      [0xF0, 0x90, 0x80, 0x80],  // U+10000
      [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF
    ]
    for content in valid {
      let document = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
      XCTAssertEqual(
        try JSONParser.parse(document), .string(String(decoding: content, as: UTF8.self)))
    }
    // Outside strings, non-ASCII bytes are a grammar error.
    XCTAssertThrowsError(try JSONParser.parse([0xC3, 0xA9])) { error in
      XCTAssertEqual((error as? JSONParseError)?.kind, .invalidJSON)
    }
  }

  func testDepthLimit() throws {
    let limit = 5
    let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
    XCTAssertNoThrow(try JSONParser.parse(deepest, maxDepth: limit))
    let tooDeep =
      String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
    XCTAssertThrowsError(try JSONParser.parse(tooDeep, maxDepth: limit)) { error in
      XCTAssertEqual((error as? JSONParseError)?.kind, .tooDeep)
      XCTAssertEqual((error as? JSONParseError)?.offset, limit)
    }
    let objects =
      String(repeating: "{\"a\":", count: limit + 1) + "1"
      + String(repeating: "}", count: limit + 1)
    XCTAssertThrowsError(try JSONParser.parse(objects, maxDepth: limit)) { error in
      XCTAssertEqual((error as? JSONParseError)?.kind, .tooDeep)
    }
    // The default limit holds for hostile input that would otherwise exhaust the stack.
    let hostile = String(repeating: "[", count: 100_000)
    XCTAssertThrowsError(try JSONParser.parse(hostile)) { error in
      XCTAssertEqual((error as? JSONParseError)?.kind, .tooDeep)
      XCTAssertEqual((error as? JSONParseError)?.offset, JSONParser.defaultMaxDepth)
    }
  }

  func testObjectsKeepKeyOrder() throws {
    let value = try JSONParser.parse(#"{"z":1,"a":2,"m":3}"#)
    XCTAssertEqual(value.objectValue?.keys, ["z", "a", "m"])
  }

  func testLargeObjectsDetectDuplicates() throws {
    let keys = (0..<100).map { "\"k\($0)\":\($0)" }
    let valid = "{" + keys.joined(separator: ",") + "}"
    let object = try XCTUnwrap(try JSONParser.parse(valid).objectValue)
    XCTAssertEqual(object.count, 100)
    XCTAssertEqual(object["k73"], 73)
    let duplicate = "{" + (keys + ["\"k42\":0"]).joined(separator: ",") + "}"
    XCTAssertThrowsError(try JSONParser.parse(duplicate)) { error in
      XCTAssertEqual((error as? JSONParseError)?.message.hasPrefix("duplicate key \"k42\""), true)
    }
  }

  func testKeysDifferingOnlyInNormalizationAreDistinct() throws {
    // "é" precomposed and decomposed are equal Swift strings but different JSON keys.
    let value = try JSONParser.parse("{\"\u{E9}\":1,\"e\u{301}\":2}")
    XCTAssertEqual(value.objectValue?.count, 2)
  }

  func testParsesFromRawBuffers() throws {
    let bytes = Array(#"  {"a":[1,2.5,"x"]}  "#.utf8)
    let value = try bytes.withUnsafeBytes { try JSONParser.parse($0) }
    XCTAssertEqual(value, ["a": [1, 2.5, "x"]])
    XCTAssertThrowsError(try JSONParser.parse(UnsafeRawBufferPointer(start: nil, count: 0)))
  }

  private func isInt(_ value: JSONValue) -> Bool {
    if case .int = value { true } else { false }
  }

  private func parseError(_ text: String) -> JSONParseErrorSummary? {
    do {
      _ = try JSONParser.parse(text)
      return nil
    } catch {
      return JSONParseErrorSummary(error.kind, error.offset, error.message)
    }
  }
}

/// The three observable parts of an error, compared at once for readable failures.
struct JSONParseErrorSummary: Equatable {
  let kind: JSONParseError.Kind
  let offset: Int
  let message: String

  init(_ kind: JSONParseError.Kind, _ offset: Int, _ message: String) {
    self.kind = kind
    self.offset = offset
    self.message = message
  }
}

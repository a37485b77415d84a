import JSON
@_spi(Hosting) import Protocol
import XCTest

/// An id comes back exactly as the host wrote it: the same text, whatever a parser would make
/// of the number.
final class MessageIDTests: XCTestCase {
  func testNumbersKeepTheirSpelling() throws {
    for number in [
      "18446744073709551617", "-9223372036854775809", "1E2", "1e-7", "7.50", "-0", "0", "42",
      "-0.0", "1.5e+300",
    ] {
      let line = #"{"cmd":"describe","id":"# + number + "}"
      XCTAssertEqual(try message(line).id, MessageID(text: Array(number.utf8)), line)
      XCTAssertEqual(try message(line).id?.description, number, line)
    }
  }

  func testStringsAreTheirValueWrittenCanonically() throws {
    XCTAssertEqual(try message(#"{"cmd":"describe","id":"req-1"}"#).id?.description, #""req-1""#)
    // Escapes the host chose are written the one way JSON output writes them.
    XCTAssertEqual(
      try message(#"{"cmd":"describe","id":"a\u0022b\/c"}"#).id?.description, #""a\"b/c""#)
  }

  func testAnIDInsideTheActionIsNotTheMessagesID() throws {
    let line = #"{"store":"s","action":{"type":"a","id":1E2},"id":2.50}"#
    XCTAssertEqual(try message(line).id?.description, "2.50")
  }

  func testOtherKindsAreRefused() {
    for id in ["null", "true", "[1]", #"{"n":1}"#] {
      XCTAssertThrowsError(try message(#"{"cmd":"describe","id":"# + id + "}")) { error in
        XCTAssertEqual(
          (error as? InputError)?.error.message, "\"id\" must be a string or a number", id)
      }
    }
  }

  func testMemberTextIsTheValueAsWritten() {
    let line = Array(#" { "a" : [1, {"id": 3}] , "id" : 1E2 } "#.utf8)
    line.withUnsafeBytes { bytes in
      XCTAssertEqual(JSONParser.memberText("id", in: bytes).map { Array($0) }, Array("1E2".utf8))
      XCTAssertEqual(
        JSONParser.memberText("a", in: bytes).map { Array($0) }, Array(#"[1, {"id": 3}]"#.utf8))
      XCTAssertNil(JSONParser.memberText("b", in: bytes))
    }
    Array("[1]".utf8).withUnsafeBytes { XCTAssertNil(JSONParser.memberText("id", in: $0)) }
  }

  private func message(_ line: String) throws -> InputMessage {
    let bytes = Array(line.utf8)
    return try bytes.withUnsafeBytes { buffer in
      try InputMessage(JSONParser.parse(buffer), line: buffer)
    }
  }
}

extension InputMessage {
  fileprivate var id: MessageID? {
    switch self {
    case .action(_, _, _, let id), .command(_, _, let id): id
    }
  }
}

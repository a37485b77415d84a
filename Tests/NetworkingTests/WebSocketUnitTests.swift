import CWebSockets
import XCTest

@testable import Networking

/// The parts of the WebSocket client that need no server.
final class WebSocketURLTests: XCTestCase {
  func testParsesSchemesHostsPortsAndResources() throws {
    let plain = try XCTUnwrap(WebSocketURL("ws://example.com/feed?x=1"))
    XCTAssertFalse(plain.isSecure)
    XCTAssertEqual(plain.host, "example.com")
    XCTAssertEqual(plain.port, 80)
    XCTAssertEqual(plain.resource, "/feed?x=1")
    XCTAssertEqual(plain.hostHeader, "example.com")

    let secure = try XCTUnwrap(WebSocketURL("WSS://api.example.com:8443"))
    XCTAssertTrue(secure.isSecure)
    XCTAssertEqual(secure.port, 8443)
    XCTAssertEqual(secure.resource, "/")
    XCTAssertEqual(secure.hostHeader, "api.example.com:8443")
    XCTAssertEqual(WebSocketURL("wss://api.example.com")?.port, 443)

    let query = try XCTUnwrap(WebSocketURL("ws://127.0.0.1:9000?count=3"))
    XCTAssertEqual(query.resource, "/?count=3")
    XCTAssertEqual(query.hostHeader, "127.0.0.1:9000")

    let ipv6 = try XCTUnwrap(WebSocketURL("ws://[::1]:8080/x"))
    XCTAssertEqual(ipv6.host, "::1")
    XCTAssertEqual(ipv6.hostHeader, "[::1]:8080")
  }

  func testRejectsWhatIsNotAWebSocketURL() {
    for string in [
      "http://example.com/", "example.com", "ws://", "ws://:80/", "ws://host:0", "ws://host:65536",
      "ws://host:port", "ws://host/#fragment", "ws://user@host/", "ws://[::1/", "ws://[::1]x/",
    ] {
      XCTAssertNil(WebSocketURL(string), string)
    }
  }

  func testCloseReasonsAreCutAtCharacterBoundaries() {
    XCTAssertEqual(WebSocketConnection.truncated("short", toBytes: 123), "short")
    let long = String(repeating: "é", count: 100)
    let cut = WebSocketConnection.truncated(long, toBytes: 123)
    XCTAssertEqual(cut.utf8.count, 122)
    XCTAssertTrue(long.hasPrefix(cut))
  }

  func testOnlySendableCloseCodesAreSent() {
    let allowed = (0...65535).filter(WebSocketCloseCode.isAllowedInCloseFrame)
    XCTAssertEqual(
      allowed, Array(1000...1003) + Array(1007...1011) + Array(3000...4999))
  }
}

final class UTF8ValidatorTests: XCTestCase {
  private func isValid(_ bytes: [UInt8]) -> Bool {
    var validator = UTF8Validator()
    return validator.consume(bytes) && validator.isAtCharacterBoundary
  }

  func testAcceptsEveryBoundaryScalar() {
    for scalar in [0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFEFF, 0xFFFF, 0x10000, 0x10FFFF] {
      let text = String(Unicode.Scalar(UInt32(scalar))!)
      XCTAssertTrue(isValid(Array(text.utf8)), "U+\(String(scalar, radix: 16))")
    }
    XCTAssertTrue(isValid(Array("Hello-µ@ßöäüàá-UTF-8!! κόσμε 𝄞".utf8)))
  }

  func testRefusesWhatRFC3629Forbids() {
    let invalid: [(String, [UInt8])] = [
      ("overlong /", [0xC0, 0xAF]), ("overlong / in 3", [0xE0, 0x80, 0xAF]),
      ("overlong / in 4", [0xF0, 0x80, 0x80, 0xAF]), ("C1", [0xC1, 0xBF]),
      ("high surrogate", [0xED, 0xA0, 0x80]), ("low surrogate", [0xED, 0xBF, 0xBF]),
      ("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80]), ("F5", [0xF5, 0x80, 0x80, 0x80]),
      ("lone continuation", [0x80]), ("FE", [0xFE]), ("FF", [0xFF]),
      ("lead without continuation", [0xC3, 0x41]),
    ]
    for (name, bytes) in invalid {
      var validator = UTF8Validator()
      XCTAssertFalse(validator.consume(bytes), name)
    }
  }

  func testAPieceMayEndInsideACharacter() {
    let euro: [UInt8] = [0xE2, 0x82, 0xAC]
    for split in 0...euro.count {
      var validator = UTF8Validator()
      XCTAssertTrue(validator.consume(euro[..<split]))
      XCTAssertEqual(validator.isAtCharacterBoundary, split == 0 || split == euro.count)
      XCTAssertTrue(validator.consume(euro[split...]))
      XCTAssertTrue(validator.isAtCharacterBoundary)
    }
  }

  func testAgreesWithTheStandardLibraryOnEveryTwoByteSequence() {
    for first in UInt8.min...UInt8.max {
      for second in UInt8.min...UInt8.max {
        let bytes = [first, second]
        XCTAssertEqual(
          isValid(bytes), String(validating: bytes, as: UTF8.self) != nil, "\(bytes)")
      }
    }
  }
}

final class ReceivedCloseTests: XCTestCase {
  func testReadsTheCodeAndReason() {
    XCTAssertEqual(
      ReceivedClose(payload: [0x03, 0xE8] + Array("bye".utf8)),
      .close(code: 1000, reason: "bye"))
    XCTAssertEqual(ReceivedClose(payload: [UInt8]()), .close(code: 1005, reason: ""))
    XCTAssertEqual(ReceivedClose(payload: [0x0F, 0xA0]), .close(code: 4000, reason: ""))
  }

  func testAnInvalidCloseIsAViolationWithTheCodeToAnswer() {
    XCTAssertEqual(
      ReceivedClose(payload: [0x03]),
      .violation(code: 1002, reason: "the server's close frame had a one-byte payload"))
    for code in [0, 999, 1004, 1005, 1006, 1015, 2999, 5000, 65535] {
      XCTAssertEqual(
        ReceivedClose(payload: [UInt8(code >> 8), UInt8(code & 0xFF)]),
        .violation(
          code: 1002,
          reason: "the server sent close code \(code), which RFC 6455 does not allow on the wire"))
    }
    XCTAssertEqual(
      ReceivedClose(payload: [0x03, 0xE8, 0xCE, 0xBA, 0xED, 0xA0, 0x80]),
      .violation(code: 1007, reason: "the server's close reason was not UTF-8"))
    XCTAssertEqual(
      ReceivedClose(payload: [0x03, 0xE8, 0xE2, 0x82]),
      .violation(code: 1007, reason: "the server's close reason was not UTF-8"))
  }
}

final class WebSocketMessageAssemblerTests: XCTestCase {
  private func append(
    _ assembler: inout MessageAssembler, _ bytes: [UInt8], binary: Bool = false,
    final: Bool = true, remaining: Int = 0
  ) -> MessageAssembler.Outcome {
    bytes.withUnsafeBytes {
      assembler.append($0, isBinary: binary, isFinalFragment: final, remainingInFrame: remaining)
    }
  }

  func testJoinsChunksAndFragmentsIntoOneMessage() {
    var assembler = MessageAssembler(limit: 100)
    XCTAssertEqual(append(&assembler, Array("Hel".utf8), final: false, remaining: 2), .incomplete)
    XCTAssertEqual(append(&assembler, Array("lo".utf8), final: false), .incomplete)
    XCTAssertEqual(
      append(&assembler, Array(", world".utf8)), .message(.text("Hello, world")))
    XCTAssertEqual(append(&assembler, [1, 2], binary: true), .message(.binary([1, 2])))
    XCTAssertEqual(append(&assembler, []), .message(.text("")))
  }

  func testAFinalFragmentIsCompleteOnlyWhenItsFrameIs() {
    var assembler = MessageAssembler(limit: 100)
    XCTAssertEqual(append(&assembler, [1], binary: true, final: true, remaining: 1), .incomplete)
    XCTAssertEqual(append(&assembler, [2], binary: true), .message(.binary([1, 2])))
  }

  func testValidatesUTF8OfTheWholeMessage() {
    var assembler = MessageAssembler(limit: 100)
    // "é" split across two fragments is fine.
    XCTAssertEqual(append(&assembler, [0xC3], final: false), .incomplete)
    XCTAssertEqual(append(&assembler, [0xA9]), .message(.text("é")))
    XCTAssertEqual(append(&assembler, [0xFF, 0xFE]), .failure(.invalidUTF8))
    XCTAssertEqual(append(&assembler, [0xC3]), .failure(.invalidUTF8))
    XCTAssertEqual(append(&assembler, Array("next".utf8)), .message(.text("next")))
  }

  func testFailsATextMessageAtTheFirstFragmentWithABadByte() {
    var assembler = MessageAssembler(limit: 100)
    // The bad byte fails the message at once, though more of the frame and message is to come.
    XCTAssertEqual(
      append(&assembler, Array("ok".utf8) + [0xED, 0xA0], final: false, remaining: 50),
      .failure(.invalidUTF8))
    // A message ending inside a character fails at its end.
    XCTAssertEqual(append(&assembler, [0xE2, 0x82], final: false), .incomplete)
    XCTAssertEqual(append(&assembler, []), .failure(.invalidUTF8))
    // Binary messages are not checked.
    XCTAssertEqual(append(&assembler, [0xFF], binary: true), .message(.binary([0xFF])))
  }

  func testFailsAMessageOverTheLimitBeforeBufferingIt() {
    var assembler = MessageAssembler(limit: 4)
    XCTAssertEqual(
      append(&assembler, [1, 2, 3, 4], binary: true), .message(.binary([1, 2, 3, 4])))
    XCTAssertEqual(
      append(&assembler, [1], binary: true, final: false, remaining: 10),
      .failure(.messageTooBig(limit: 4)))
    XCTAssertEqual(append(&assembler, [1, 2, 3], binary: true, final: false), .incomplete)
    XCTAssertEqual(append(&assembler, [4, 5], binary: true), .failure(.messageTooBig(limit: 4)))
  }

  func testTellsAnAnnouncedFrameOverTheLimitBeforeItsPayload() {
    var assembler = MessageAssembler(limit: 4)
    XCTAssertTrue(assembler.fitsFrame(remainingInFrame: 4))
    XCTAssertFalse(assembler.fitsFrame(remainingInFrame: 5))
    // The largest length a frame header may announce does not overflow the sum.
    XCTAssertFalse(assembler.fitsFrame(remainingInFrame: Int.max))
    // A continuation counts what the message holds already.
    XCTAssertEqual(append(&assembler, [1, 2, 3], binary: true, final: false), .incomplete)
    XCTAssertTrue(assembler.fitsFrame(remainingInFrame: 1))
    XCTAssertFalse(assembler.fitsFrame(remainingInFrame: 2))
    XCTAssertEqual(
      append(&assembler, [1, 2], binary: true, final: false, remaining: Int.max),
      .failure(.messageTooBig(limit: 4)))
  }
}

final class WebSocketOutgoingQueueTests: XCTestCase {
  private struct Written: Equatable {
    var kind: String
    var bytes: [UInt8]
    var flags: UInt32 = 0
  }

  private func drain(_ queue: inout OutgoingQueue) -> [Written] {
    var written: [Written] = []
    while let frame = queue.next() {
      switch frame {
      case .ping(let payload):
        written.append(Written(kind: "ping", bytes: payload))
      case .fragment(let bytes, let flags, _):
        written.append(Written(kind: "fragment", bytes: Array(bytes), flags: flags.rawValue))
      case .close(let code, let reason):
        written.append(Written(kind: "close \(code)", bytes: reason))
      }
    }
    return written
  }

  func testCutsMessagesIntoFragmentsAndPutsPingsFirstAndCloseLast() {
    var queue = OutgoingQueue(fragmentSize: 3)
    queue.enqueue(.binary([1, 2, 3, 4, 5, 6, 7]), completion: nil)
    queue.enqueue(.text("hi"), completion: nil)
    queue.enqueueClose(code: 1000, reason: Array("bye".utf8))
    guard case .fragment(let first, _, _)? = queue.next() else { return XCTFail("no fragment") }
    XCTAssertEqual(Array(first), [1, 2, 3])
    queue.enqueuePing([9])
    let text = LWS_WRITE_TEXT.rawValue
    let continuation = LWS_WRITE_CONTINUATION.rawValue
    let noFin = LWS_WRITE_NO_FIN.rawValue
    XCTAssertEqual(
      drain(&queue),
      [
        Written(kind: "ping", bytes: [9]),
        Written(kind: "fragment", bytes: [4, 5, 6], flags: continuation | noFin),
        Written(kind: "fragment", bytes: [7], flags: continuation),
        Written(kind: "fragment", bytes: Array("hi".utf8), flags: text),
        Written(kind: "close 1000", bytes: Array("bye".utf8)),
      ])
    XCTAssertTrue(queue.isEmpty)
  }

  func testTheFirstFragmentCarriesTheOpcodeAndAnEmptyMessageIsOneFrame() {
    var queue = OutgoingQueue(fragmentSize: 2)
    queue.enqueue(.binary([1, 2, 3]), completion: nil)
    queue.enqueue(.text(""), completion: nil)
    XCTAssertEqual(
      drain(&queue),
      [
        Written(
          kind: "fragment", bytes: [1, 2],
          flags: LWS_WRITE_BINARY.rawValue | LWS_WRITE_NO_FIN.rawValue),
        Written(kind: "fragment", bytes: [3], flags: LWS_WRITE_CONTINUATION.rawValue),
        Written(kind: "fragment", bytes: [], flags: LWS_WRITE_TEXT.rawValue),
      ])
  }
}

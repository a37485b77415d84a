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
    XCTAssertTrue(WebSocketCloseCode.isSendable(1000))
    XCTAssertTrue(WebSocketCloseCode.isSendable(4999))
    XCTAssertFalse(WebSocketCloseCode.isSendable(1005))
    XCTAssertFalse(WebSocketCloseCode.isSendable(1006))
    XCTAssertFalse(WebSocketCloseCode.isSendable(1015))
    XCTAssertFalse(WebSocketCloseCode.isSendable(999))
    XCTAssertFalse(WebSocketCloseCode.isSendable(5000))
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

import ComposableDependencies
import XCTest

@testable import WebSocketFeature

/// The wire forms of a message: its `type` written, and on input optional (the earlier form)
/// but never contradicting its member; a received binary message listed as an object.
final class WebSocketMessageFormTests: XCTestCase {
  private func encoded<T: Encodable>(_ value: T) throws -> JSONValue {
    try JSONValueEncoder().encode(value)
  }

  private func decoded<T: Decodable>(_ type: T.Type, _ json: JSONValue) throws -> T {
    try JSONValueDecoder().decode(T.self, from: json)
  }

  func testAMessageSaysItsKindAndMayLeaveItOutOnInput() throws {
    XCTAssertEqual(try encoded(SocketMessage.text("hi")), ["type": "text", "text": "hi"])
    XCTAssertEqual(
      try encoded(SocketMessage.binary([0, 255, 1])), ["type": "binary", "binary": "AP8B"])
    XCTAssertEqual(try decoded(SocketMessage.self, ["text": "hi"]), .text("hi"))
    XCTAssertEqual(try decoded(SocketMessage.self, ["binary": "AP8B"]), .binary([0, 255, 1]))
    XCTAssertEqual(
      try decoded(SocketMessage.self, ["type": "binary", "binary": "AP8B"]), .binary([0, 255, 1]))
    XCTAssertThrowsError(try decoded(SocketMessage.self, ["type": "binary", "text": "hi"]))
    XCTAssertThrowsError(try decoded(SocketMessage.self, ["type": "text", "binary": "AP8B"]))
  }

  func testAReceivedTextIsAStringAndABinaryAnObject() throws {
    let messages: [ReceivedMessage] = [
      ReceivedMessage(.text("AP8B")), ReceivedMessage(.binary([0, 255, 1])),
    ]
    let json: JSONValue = ["AP8B", ["type": "binary", "binary": "AP8B"]]
    XCTAssertEqual(try encoded(messages), json)
    XCTAssertEqual(try decoded([ReceivedMessage].self, json), messages)
    XCTAssertEqual(messages.map(\.byteCount), [4, 4])
    XCTAssertThrowsError(try decoded(ReceivedMessage.self, ["binary": "not base64"]))
  }
}

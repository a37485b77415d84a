import EventLoop
import Foundation
import XCTest

@testable import Networking

/// wss against `ws_servers.py --tls-cert/--tls-key`, with a certificate for 127.0.0.1 and
/// localhost signed by a throw-away CA.
final class WebSocketTLSTests: XCTestCase {
  /// Made once for the class; XCTest runs its tests one after the other.
  nonisolated(unsafe) private static var certificates: TestCertificates?

  override class func tearDown() {
    certificates?.remove()
    certificates = nil
  }

  private func makeCertificates() throws -> TestCertificates {
    if let certificates = Self.certificates { return certificates }
    let certificates = try TestCertificates.make()
    Self.certificates = certificates
    return certificates
  }

  func testWSSWithTheCAFileOpensAndEchoes() throws {
    let certificates = try makeCertificates()
    let server = try WebSocketTestServer(tls: certificates)
    XCTAssertTrue(server.url.hasPrefix("wss://127.0.0.1:"))
    let urls = [server.url + "/echo", "wss://localhost:\(server.server.port)/echo"]
    let caFile = certificates.ca
    runOnLoop { loop in
      let client = WebSocketClient(
        loop: loop, configuration: .testing(caFile: caFile))
      for url in urls {
        var events = await client.open(id: url, url: url).makeAsyncIterator()
        let opened = await events.next()
        XCTAssertEqual(opened, .didOpen(protocol: nil), url)
        var messages = await client.receive(id: url).makeAsyncIterator()
        let welcome = await messages.next()
        XCTAssertEqual(welcome, .success(.text("Welcome to the echo server")), url)
        let large = [UInt8](repeating: 42, count: 300_000)
        try await client.send(id: url, message: .binary(large))
        let echoed = await messages.next()
        XCTAssertEqual(echoed, .success(.binary(large)), url)
        await client.close(id: url, code: 4002, reason: "tls bye")
        let closed = await events.next()
        XCTAssertEqual(closed, .didClose(code: 4002, reason: "tls bye"), url)
      }
    }
  }

  func testWSSWithoutTheCAFileIsRefused() throws {
    let server = try WebSocketTestServer(tls: try makeCertificates())
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      let events = await client.open(id: "a", url: url).allElements()
      XCTAssertEqual(events.count, 1)
      guard case .didClose(1006, let reason)? = events.first else {
        return XCTFail("expected didClose(1006), got \(events)")
      }
      XCTAssertTrue(
        reason.hasSuffix("TLS certificate rejected: unable to get local issuer certificate"), reason
      )
    }
  }

  func testWSSToAHostTheCertificateDoesNotNameIsRefused() throws {
    let certificates = try makeCertificates()
    // The certificate names 127.0.0.1 and localhost, not 127.0.0.2.
    let server = try WebSocketTestServer(tls: certificates, host: "127.0.0.2")
    let url = server.url + "/echo"
    XCTAssertTrue(url.hasPrefix("wss://127.0.0.2:"))
    let caFile = certificates.ca
    runOnLoop { loop in
      let client = WebSocketClient(
        loop: loop, configuration: .testing(caFile: caFile))
      let events = await client.open(id: "a", url: url).allElements()
      XCTAssertEqual(events.count, 1)
      guard case .didClose(1006, let reason)? = events.first else {
        return XCTFail("expected didClose(1006), got \(events)")
      }
      XCTAssertTrue(reason.hasSuffix("TLS certificate rejected: IP address mismatch"), reason)
    }
  }

  func testAnUnreadableCAFileFailsEveryOpen() {
    runOnLoop { loop in
      let client = WebSocketClient(
        loop: loop, configuration: .testing(caFile: "/nonexistent/ca.pem"))
      let events = await client.open(id: "a", url: "wss://127.0.0.1:1/").allElements()
      XCTAssertEqual(
        events, [.didClose(code: 1006, reason: "cannot read the CA file /nonexistent/ca.pem")])
    }
  }
}

import CLibUV
import EventLoop
import Foundation
import Glibc
import XCTest

@testable import Networking

/// The client against `ws_servers.py` over plain ws. Every test also checks, through
/// `runOnLoop`, that the loop ends by itself with no handle left behind.
final class WebSocketClientTests: XCTestCase {
  private var server: WebSocketTestServer!

  override func setUpWithError() throws {
    server = try WebSocketTestServer()
  }

  override func tearDown() {
    server = nil
  }

  func testEchoesTextAndBinaryAfterTheWelcome() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var socket = await openSocket(client, id: "echo", url: url)
      XCTAssertEqual(socket.firstEvent, .didOpen(protocol: nil))
      let welcome = await socket.messages.next()
      XCTAssertEqual(welcome, .success(.text("Welcome to the echo server")))
      try await client.send(id: "echo", message: .text("héllo, wörld"))
      let text = await socket.messages.next()
      XCTAssertEqual(text, .success(.text("héllo, wörld")))
      try await client.send(id: "echo", message: .binary([0, 1, 2, 255]))
      let binary = await socket.messages.next()
      XCTAssertEqual(binary, .success(.binary([0, 1, 2, 255])))
      try await client.send(id: "echo", message: .text(""))
      let empty = await socket.messages.next()
      XCTAssertEqual(empty, .success(.text("")))
      await client.close(id: "echo", code: 1000, reason: "done")
      let closed = await socket.events.next()
      XCTAssertEqual(closed, .didClose(code: 1000, reason: "done"))
      let end = await socket.events.next()
      XCTAssertNil(end)
      let noMoreMessages = await socket.messages.next()
      XCTAssertNil(noMoreMessages)
    }
  }

  func testReportsTheSubprotocolTheServerSelected() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var events = await client.open(id: 1, url: url, protocols: ["superchat", "chat"])
        .makeAsyncIterator()
      let opened = await events.next()
      XCTAssertEqual(opened, .didOpen(protocol: "superchat"))
      await client.close(id: 1)
      let closed = await events.next()
      XCTAssertEqual(closed, .didClose(code: 1000, reason: ""))
    }
  }

  func testClientCloseSendsItsCodeAndReason() {
    let url = server.url
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var events = await client.open(id: "a", url: url + "/echo").makeAsyncIterator()
      _ = await events.next()
      await client.close(id: "a", code: 4000, reason: "client says bye")
      let closed = await events.next()
      XCTAssertEqual(closed, .didClose(code: 4000, reason: "client says bye"))
      let seen = await Self.lastCloseSeenByServer(client: client, url: url)
      XCTAssertEqual(seen?["code"] as? Int, 4000)
      XCTAssertEqual(seen?["reason"] as? String, "client says bye")
    }
  }

  func testServerCloseReportsItsCodeAndReason() {
    let url = server.url + "/close?code=4001&reason=bye"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      let events = await client.open(id: "a", url: url).allElements()
      XCTAssertEqual(events, [.didOpen(protocol: nil), .didClose(code: 4001, reason: "bye")])
    }
  }

  func testRefusedHandshakeClosesAbnormallyWithTheStatus() {
    let url = server.url + "/refuse"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      let events = await client.open(id: "a", url: url).allElements()
      XCTAssertEqual(events.count, 1)
      guard case .didClose(let code, let reason)? = events.first else {
        return XCTFail("expected didClose, got \(events)")
      }
      XCTAssertEqual(code, 1006)
      XCTAssertTrue(reason.hasSuffix("the server answered the handshake with HTTP 403"), reason)
    }
  }

  func testConnectionRefusedClosesAbnormally() throws {
    let port = try Self.unusedPort()
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      let events = await client.open(id: "a", url: "ws://127.0.0.1:\(port)/").allElements()
      guard events.count == 1, case .didClose(1006, let reason) = events[0] else {
        return XCTFail("expected one didClose(1006), got \(events)")
      }
      XCTAssertFalse(reason.isEmpty)
    }
  }

  func testTCPDropWithoutCloseFrameClosesAbnormally() {
    let url = server.url + "/drop"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var events = await client.open(id: "a", url: url).makeAsyncIterator()
      let opened = await events.next()
      XCTAssertEqual(opened, .didOpen(protocol: nil))
      let messages = await client.receive(id: "a").allElements()
      XCTAssertEqual(messages, [.success(.text("Welcome to the echo server"))])
      let closed = await events.next()
      XCTAssertEqual(
        closed, .didClose(code: 1006, reason: "the connection closed without a close frame"))
    }
  }

  func testReassemblesAFragmentedMessage() {
    let url = server.url + "/fragmented?parts=7"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var socket = await openSocket(client, id: "a", url: url)
      let message = await socket.messages.next()
      let expected = (0..<7).map { "fragment-\($0)" }.joined(separator: " ")
      XCTAssertEqual(message, .success(.text(expected)))
      await client.close(id: "a")
      _ = await socket.events.next()
    }
  }

  func testRoundTripsOneMebibyteMessages() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var socket = await openSocket(client, id: "a", url: url)
      _ = await socket.messages.next()
      let binary = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
      try await client.send(id: "a", message: .binary(binary))
      let echoedBinary = await socket.messages.next()
      XCTAssertEqual(echoedBinary, .success(.binary(binary)))
      // Multi-byte characters, so that fragments split them.
      let text = String(repeating: "ü€𝄞", count: (1 << 20) / 9 + 1)
      try await client.send(id: "a", message: .text(text))
      let echoedText = await socket.messages.next()
      XCTAssertEqual(echoedText, .success(.text(text)))
      await client.close(id: "a")
      _ = await socket.events.next()
    }
  }

  func testInvalidUTF8FailsTheSocketCleanly() {
    let url = server.url + "/badutf8"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var events = await client.open(id: "a", url: url).makeAsyncIterator()
      let opened = await events.next()
      XCTAssertEqual(opened, .didOpen(protocol: nil))
      let messages = await client.receive(id: "a").allElements()
      XCTAssertEqual(messages, [.failure(.invalidUTF8)])
      let closed = await events.next()
      XCTAssertEqual(closed, .didClose(code: 1007, reason: WebSocketError.invalidUTF8.description))
    }
  }

  func testMessageOverTheLimitClosesWith1009() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(
        loop: loop, configuration: .testing(maximumMessageSize: 64 * 1024))
      var socket = await openSocket(client, id: "a", url: url)
      _ = await socket.messages.next()
      try await client.send(id: "a", message: .binary([UInt8](repeating: 7, count: 64 * 1024)))
      let atLimit = await socket.messages.next()
      XCTAssertEqual(atLimit, .success(.binary([UInt8](repeating: 7, count: 64 * 1024))))
      try await client.send(id: "a", message: .binary([UInt8](repeating: 7, count: 100_000)))
      let tooBig = await socket.messages.next()
      XCTAssertEqual(tooBig, .failure(.messageTooBig(limit: 64 * 1024)))
      let closed = await socket.events.next()
      XCTAssertEqual(
        closed,
        .didClose(code: 1009, reason: WebSocketError.messageTooBig(limit: 64 * 1024).description))
    }
  }

  func testServerObservesPingsAndTheirPongsReturn() {
    let url = server.url + "/pings"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var socket = await openSocket(client, id: "a", url: url)
      for expected in 1...3 {
        try await client.sendPing(id: "a")
        let report = decodedJSONObject(await socket.messages.next())
        XCTAssertEqual(report?["pingReceived"] as? Int, expected)
        XCTAssertEqual(report?["payload"] as? String, String(format: "%016x", expected))
      }
      await client.close(id: "a")
      _ = await socket.events.next()
    }
  }

  func testTwoSocketsAtOnceKeepTheirOwnMessages() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var first = await client.open(id: "first", url: url).makeAsyncIterator()
      var second = await client.open(id: "second", url: url).makeAsyncIterator()
      _ = await first.next()
      _ = await second.next()
      var firstMessages = await client.receive(id: "first").makeAsyncIterator()
      var secondMessages = await client.receive(id: "second").makeAsyncIterator()
      _ = await firstMessages.next()
      _ = await secondMessages.next()
      for round in 0..<20 {
        try await client.send(id: "first", message: .text("first \(round)"))
        try await client.send(id: "second", message: .text("second \(round)"))
      }
      for round in 0..<20 {
        let one = await firstMessages.next()
        let two = await secondMessages.next()
        XCTAssertEqual(one, .success(.text("first \(round)")))
        XCTAssertEqual(two, .success(.text("second \(round)")))
      }
      await client.close(id: "first")
      let firstClosed = await first.next()
      XCTAssertEqual(firstClosed, .didClose(code: 1000, reason: ""))
      try await client.send(id: "second", message: .text("still here"))
      let stillHere = await secondMessages.next()
      XCTAssertEqual(stillHere, .success(.text("still here")))
      await client.close(id: "second")
      _ = await second.next()
    }
  }

  func testSendAndPingThrowUnlessOpen() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      await Self.assertNotOpen { try await client.send(id: "nobody", message: .text("x")) }
      await Self.assertNotOpen { try await client.sendPing(id: "nobody") }
      var events = await client.open(id: "a", url: url).makeAsyncIterator()
      await Self.assertNotOpen { try await client.send(id: "a", message: .text("too early")) }
      _ = await events.next()
      await client.close(id: "a")
      await Self.assertNotOpen { try await client.send(id: "a", message: .text("too late")) }
      _ = await events.next()
      await Self.assertNotOpen { try await client.send(id: "a", message: .text("gone")) }
      let messages = await client.receive(id: "a").allElements()
      XCTAssertEqual(messages, [])
    }
  }

  func testCancellingTheOpenStreamClosesTheSocket() {
    let url = server.url
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      let opened = WebSocketTestBox(false)
      let connection = Task(executorPreference: loop.executor) {
        for await event in await client.open(id: "a", url: url + "/echo") {
          if case .didOpen = event { opened.withValue { $0 = true } }
        }
      }
      while !opened.withValue({ $0 }) { try await loop.clock.sleep(for: .milliseconds(5)) }
      connection.cancel()
      await connection.value
      // The id is free at once, and the server sees a normal close.
      await Self.assertNotOpen { try await client.send(id: "a", message: .text("x")) }
      let seen = await Self.lastCloseSeenByServer(client: client, url: url)
      XCTAssertEqual(seen?["code"] as? Int, 1000)
    }
  }

  func testCancellingWhileConnectingAborts() throws {
    let port = try Self.silentListener()
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      let events = await client.open(id: "a", url: "ws://127.0.0.1:\(port.number)/")
      let consumer = Task(executorPreference: loop.executor) { await events.allElements() }
      try await loop.clock.sleep(for: .milliseconds(50))
      consumer.cancel()
      _ = await consumer.value
    }
    port.close()
  }

  func testReusingAnIdClosesThePreviousSocket() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var old = await client.open(id: "a", url: url).makeAsyncIterator()
      _ = await old.next()
      var new = await client.open(id: "a", url: url).makeAsyncIterator()
      let oldClosed = await old.next()
      XCTAssertEqual(oldClosed, .didClose(code: 1001, reason: "replaced by a new socket"))
      let newOpened = await new.next()
      XCTAssertEqual(newOpened, .didOpen(protocol: nil))
      await client.close(id: "a")
      _ = await new.next()
    }
  }

  func testConnectTimeout() throws {
    let port = try Self.silentListener()
    runOnLoop { loop in
      let client = WebSocketClient(
        loop: loop, configuration: .testing(connectTimeout: .milliseconds(300)))
      let start = ContinuousClock.now
      let events = await client.open(id: "a", url: "ws://127.0.0.1:\(port.number)/").allElements()
      XCTAssertEqual(events, [.didClose(code: 1006, reason: "timed out after 0.3 seconds")])
      XCTAssertLessThan(ContinuousClock.now - start, .seconds(2))
    }
    port.close()
  }

  func testInvalidURLsCloseAtOnce() {
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      for url in ["http://127.0.0.1/", "ws://", "ws://host:0/", "ws://host/#fragment"] {
        let events = await client.open(id: url, url: url).allElements()
        XCTAssertEqual(
          events, [.didClose(code: 1006, reason: "not a ws:// or wss:// URL: \(url)")], url)
      }
    }
  }

  func testResolvesHostNames() {
    let port = server.server.port
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var events = await client.open(id: "a", url: "ws://localhost:\(port)/echo")
        .makeAsyncIterator()
      let opened = await events.next()
      XCTAssertEqual(opened, .didOpen(protocol: nil))
      await client.close(id: "a")
      _ = await events.next()
      let unknown = await client.open(id: "b", url: "ws://no-such-host.invalid/").allElements()
      guard case .didClose(1006, let reason)? = unknown.first else {
        return XCTFail("expected didClose(1006), got \(unknown)")
      }
      XCTAssertTrue(reason.contains("cannot resolve no-such-host.invalid"), reason)
    }
  }

  func testTriesTheNextAddressWhenOneRefuses() {
    let port = server.server.port
    runOnLoop { loop in
      // Nothing listens on 127.0.0.2 and 127.0.0.3; the server is on 127.0.0.1.
      let client = WebSocketClient(
        loop: loop, configuration: .testing(),
        resolver: { host, _ in
          host == "dual.test" ? ["127.0.0.2", "127.0.0.1"] : ["127.0.0.2", "127.0.0.3"]
        })
      var events = await client.open(id: "a", url: "ws://dual.test:\(port)/echo")
        .makeAsyncIterator()
      let opened = await events.next()
      XCTAssertEqual(opened, .didOpen(protocol: nil))
      await client.close(id: "a")
      _ = await events.next()
      let failed = await client.open(id: "b", url: "ws://nowhere.test:\(port)/echo").allElements()
      guard failed.count == 1, case .didClose(1006, _) = failed[0] else {
        return XCTFail("expected one didClose(1006), got \(failed)")
      }
    }
  }

  func testShutdownClosesEverySocketAndRefusesNewOnes() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      var first = await client.open(id: "a", url: url).makeAsyncIterator()
      var second = await client.open(id: "b", url: url).makeAsyncIterator()
      let firstOpened = await first.next()
      let secondOpened = await second.next()
      XCTAssertEqual(firstOpened, .didOpen(protocol: nil))
      XCTAssertEqual(secondOpened, .didOpen(protocol: nil))
      await client.shutdown()
      let firstClosed = await first.next()
      let secondClosed = await second.next()
      XCTAssertEqual(firstClosed, .didClose(code: 1001, reason: "shutting down"))
      XCTAssertEqual(secondClosed, .didClose(code: 1001, reason: "shutting down"))
      let late = await client.open(id: "c", url: url).allElements()
      XCTAssertEqual(late, [.didClose(code: 1006, reason: "the WebSocket client is shut down")])
    }
  }

  func testReconnectsAfterTheContextWasTornDown() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(loop: loop, configuration: .testing())
      for round in 0..<3 {
        var events = await client.open(id: "a", url: url).makeAsyncIterator()
        let opened = await events.next()
        XCTAssertEqual(opened, .didOpen(protocol: nil), "round \(round)")
        await client.close(id: "a")
        _ = await events.next()
        // Let the idle context's teardown start, so that the next open waits for it.
        await Task.yield()
      }
    }
  }

  func testTheIdleContextIsReusedThenLetsTheLoopEnd() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      let client = WebSocketClient(
        loop: loop, configuration: WebSocketConfiguration(idleContextLifetime: .milliseconds(300)))
      for _ in 0..<2 {
        var events = await client.open(id: "a", url: url).makeAsyncIterator()
        let opened = await events.next()
        XCTAssertEqual(opened, .didOpen(protocol: nil))
        await client.close(id: "a")
        _ = await events.next()
        // No socket left, but the context's handles (its wake-up pipe's poll, say) remain.
        try await loop.clock.sleep(for: .milliseconds(50))
        XCTAssertTrue(Self.handleTypes(on: loop).contains(UV_POLL))
      }
      // runOnLoop checks that the loop then ends by itself, with no handle left.
    }
  }

  func testAbortingWhileTheContextIsTornDownLeavesNothingBehind() {
    let url = server.url + "/echo"
    runOnLoop { loop in
      // Torn down as soon as idle, so that the next socket has to wait for it.
      let client = WebSocketClient(
        loop: loop, configuration: WebSocketConfiguration(idleContextLifetime: .zero))
      for round in 0..<5 {
        var events = await client.open(id: "a", url: url).makeAsyncIterator()
        _ = await events.next()
        await client.close(id: "a")
        _ = await events.next()
        // The teardown of the now idle context is under way; this socket waits for it, or
        // for the context made after it, and is aborted meanwhile.
        let aborted = await client.open(id: "b", url: url)
        // Lets its connect task start waiting for the teardown.
        await Task.yield()
        await client.close(id: "b")
        let events2 = await aborted.allElements()
        XCTAssertEqual(
          events2, [.didClose(code: 1006, reason: "closed before it opened")], "round \(round)")
      }
    }
  }

  // MARK: Helpers

  private static func assertNotOpen(
    file: StaticString = #filePath, line: UInt = #line, _ operation: () async throws -> Void
  ) async {
    do {
      try await operation()
      XCTFail("expected WebSocketError.notOpen", file: file, line: line)
    } catch {
      XCTAssertEqual(error as? WebSocketError, .notOpen, file: file, line: line)
    }
  }

  /// The close frame the server last received from any client, through `/lastclose`.
  private static func lastCloseSeenByServer(client: WebSocketClient, url: String) async
    -> [String: Any]?
  {
    var events = await client.open(id: "lastclose", url: url + "/lastclose").makeAsyncIterator()
    _ = await events.next()
    var messages = await client.receive(id: "lastclose").makeAsyncIterator()
    let report = decodedJSONObject(await messages.next())
    await client.close(id: "lastclose")
    _ = await events.next()
    return report
  }

  /// A port nothing listens on.
  private static func unusedPort() throws -> Int {
    let listener = try silentListener()
    listener.close()
    return listener.number
  }

  /// A listening socket's port and descriptor.
  private struct Listener: Sendable {
    let number: Int
    let descriptor: Int32

    func close() {
      Glibc.close(descriptor)
    }
  }

  /// A listening TCP socket on 127.0.0.1 that never accepts: connects succeed (the kernel
  /// completes them) and then nothing is ever said.
  private static func silentListener() throws -> Listener {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else {
      Glibc.close(fd)
      throw ServerError("cannot listen on 127.0.0.1")
    }
    return Listener(number: Int(UInt16(bigEndian: address.sin_port)), descriptor: fd)
  }
}

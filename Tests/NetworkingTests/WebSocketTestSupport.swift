import CLibUV
import EventLoop
import Foundation
import XCTest

@testable import Networking

/// `Tests/servers/ws_servers.py`, plain or with TLS.
final class WebSocketTestServer {
  let server: PythonServer
  let url: String

  init(arguments: [String] = []) throws {
    server = try PythonServer(script: "ws_servers.py", arguments: arguments)
    url = try XCTUnwrap(server.ready["url"] as? String)
  }

  /// A wss server whose certificate `certificates.ca` signed, for 127.0.0.1 and localhost.
  convenience init(tls certificates: TestCertificates, host: String = "127.0.0.1") throws {
    try self.init(arguments: [
      "--tls-cert", certificates.cert, "--tls-key", certificates.key, "--host", host,
    ])
  }
}

extension WebSocketConfiguration {
  /// A configuration whose idle context lives only briefly, so that a test's loop ends soon
  /// after its last socket.
  static func testing(
    caFile: String? = nil, maximumMessageSize: Int = 16 * 1024 * 1024,
    connectTimeout: Duration = .seconds(10)
  ) -> Self {
    WebSocketConfiguration(
      caFile: caFile, maximumMessageSize: maximumMessageSize, connectTimeout: connectTimeout,
      idleContextLifetime: .milliseconds(20))
  }
}

/// State shared between the loop thread and the test thread.
final class WebSocketTestBox<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  func withValue<T>(_ body: (inout Value) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}

extension XCTestCase {
  /// Creates a loop on the test thread, runs `body` as a task on it, runs the loop until
  /// nothing keeps it alive, then checks that `body` finished and that no handle other than the
  /// executor's is left: the WebSocket client must have destroyed its libwebsockets context by
  /// itself. A watchdog stops a loop that runs longer than `timeout`.
  func runOnLoop(
    timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable (EventLoop) async throws -> Void
  ) {
    let loop = try! EventLoop()
    let outcome = WebSocketTestBox((finished: false, error: (any Error)?.none, timedOut: false))
    Task(executorPreference: loop.executor) {
      do {
        try await body(loop)
      } catch {
        outcome.withValue { $0.error = error }
      }
      outcome.withValue { $0.finished = true }
    }
    let watchdog = Thread {
      let deadline = Date().addingTimeInterval(timeout)
      while Date() < deadline {
        if Thread.current.isCancelled { return }
        Thread.sleep(forTimeInterval: 0.05)
      }
      outcome.withValue { $0.timedOut = true }
      loop.stop()
    }
    watchdog.start()
    loop.run()
    watchdog.cancel()
    let result = outcome.withValue { $0 }
    XCTAssertFalse(result.timedOut, "the loop ran longer than \(timeout) s", file: file, line: line)
    XCTAssertTrue(
      result.finished, "the loop ended before the test body did", file: file, line: line)
    if let error = result.error {
      XCTFail("the test body threw \(error)", file: file, line: line)
    }
    XCTAssertEqual(
      Self.handleTypes(on: loop), [UV_ASYNC], "handles left on the loop", file: file, line: line)
    XCTAssertNoThrow(try loop.shutdown(), file: file, line: line)
  }

  /// The types of the handles on `loop` that are not closing.
  static func handleTypes(on loop: EventLoop) -> [uv_handle_type] {
    var types: [uv_handle_type] = []
    withUnsafeMutablePointer(to: &types) { uv_walk(loop.uvLoop, appendHandleType, $0) }
    return types
  }
}

private func appendHandleType(
  _ handle: UnsafeMutablePointer<uv_handle_t>?, _ arg: UnsafeMutableRawPointer?
) {
  guard let handle, uv_is_closing(handle) == 0 else { return }
  arg!.assumingMemoryBound(to: [uv_handle_type].self).pointee.append(handle.pointee.type)
}

extension AsyncStream {
  /// Every element until the stream ends.
  func allElements() async -> [Element] {
    var elements: [Element] = []
    for await element in self { elements.append(element) }
    return elements
  }
}

/// A text message's JSON object.
func decodedJSONObject(_ message: Result<WebSocketMessage, WebSocketError>?) -> [String: Any]? {
  guard case .success(.text(let text))? = message else { return nil }
  return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
}

/// A socket a test opened: its first event, and iterators over its later events and its
/// messages.
struct OpenedSocket {
  let firstEvent: WebSocketEvent?
  var events: AsyncStream<WebSocketEvent>.Iterator
  var messages: AsyncStream<Result<WebSocketMessage, WebSocketError>>.Iterator
}

/// Opens socket `id`, waits for its first event, then subscribes to its messages: how most
/// tests start.
func openSocket(_ client: WebSocketClient, id: String, url: String) async -> OpenedSocket {
  var events = await client.open(id: id, url: url).makeAsyncIterator()
  let firstEvent = await events.next()
  let messages = await client.receive(id: id).makeAsyncIterator()
  return OpenedSocket(firstEvent: firstEvent, events: events, messages: messages)
}

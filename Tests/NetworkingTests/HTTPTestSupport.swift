import CLibUV
import EventLoop
import Foundation
import Networking
import Synchronization
import XCTest

/// What a test body gets: a loop, a client on it, and the fixture server's address.
struct HTTPFixture: Sendable {
  let loop: EventLoop
  let client: HTTPClient
  /// `http://127.0.0.1:N` or `https://…`.
  let base: String

  func url(_ path: String) -> String { base + path }

  /// The fixture's request log, fetched with `client`.
  func requests() async throws -> [HTTPFixtureRequest] {
    let response = try await client.get(url("/_control/requests"), timeout: .seconds(5))
    let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    let entries = object?["requests"] as? [[String: Any]] ?? []
    return entries.map { entry in
      HTTPFixtureRequest(
        path: entry["path"] as? String ?? "", outcome: entry["outcome"] as? String ?? "",
        connection: entry["connection"] as? Int ?? 0)
    }
  }

  /// Polls the log until `condition` holds, for up to 5 s; returns the last log seen.
  @discardableResult
  func waitForLog(_ condition: ([HTTPFixtureRequest]) -> Bool) async throws -> [HTTPFixtureRequest]
  {
    var log = try await requests()
    for _ in 0..<100 where !condition(log) {
      try await loop.clock.sleep(for: .milliseconds(50))
      log = try await requests()
    }
    return log
  }

  /// The outcome the fixture logged for `path` once it is no longer "pending".
  func settledOutcome(of path: String) async throws -> String? {
    let log = try await waitForLog { log in
      log.contains { $0.path == path && $0.outcome != "pending" }
    }
    return log.last { $0.path == path }?.outcome
  }

  /// Waits until the fixture has received a request for `path`.
  func waitUntilReceived(_ path: String) async throws {
    try await waitForLog { log in log.contains { $0.path == path } }
  }
}

struct HTTPFixtureRequest: Sendable, Equatable {
  let path: String
  let outcome: String
  let connection: Int
}

extension XCTestCase {
  /// Starts the fixture server, runs `body` in a task on a fresh loop with a client, shuts the
  /// client down, and checks that the loop then ended with no handle left open.
  func withHTTPFixture(
    serverArguments: [String] = [], configuration: HTTPConfiguration = HTTPConfiguration(),
    file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable (HTTPFixture) async throws -> Void
  ) throws {
    let server = try PythonServer(script: "fixture_server.py", arguments: serverArguments)
    let base = server.ready["url"] as? String ?? ""
    try withExtendedLifetime(server) {
      try runHTTPTest(file: file, line: line) { loop in
        let fixture = HTTPFixture(
          loop: loop, client: HTTPClient(loop: loop, configuration: configuration), base: base)
        do {
          try await body(fixture)
        } catch {
          XCTFail("unexpected error: \(error)", file: file, line: line)
        }
        await fixture.client.shutdown()
      }
    }
  }

  /// Runs `body` in a task on a fresh loop until the loop ends by itself, then checks that the
  /// body finished and that every handle it opened was closed. A watchdog stops a loop that
  /// runs for more than a minute, so that a hanging test fails instead of blocking the run.
  private func runHTTPTest(
    file: StaticString, line: UInt, _ body: @escaping @Sendable (EventLoop) async -> Void
  ) throws {
    let loop = try EventLoop()
    let handlesBefore = openHandleCount(loop)
    let finished = Flag()
    Task(executorPreference: loop.executor) {
      await body(loop)
      finished.set()
    }
    let loopEnded = Flag()
    Thread.detachNewThread {
      let deadline = Date().addingTimeInterval(60)
      while !loopEnded.isSet && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
      if !loopEnded.isSet { loop.stop() }
    }
    loop.run()
    loopEnded.set()
    XCTAssertTrue(
      finished.isSet, "the loop ended before the test body finished", file: file, line: line)
    XCTAssertEqual(
      openHandleCount(loop), handlesBefore, "handles left open on the loop", file: file,
      line: line)
    XCTAssertNoThrow(try loop.shutdown(), file: file, line: line)
  }
}

/// Handles on the loop that are not closing.
private func openHandleCount(_ loop: EventLoop) -> Int {
  var count = 0
  withUnsafeMutablePointer(to: &count) { uv_walk(loop.uvLoop, countOpenHandle, $0) }
  return count
}

private func countOpenHandle(
  _ handle: UnsafeMutablePointer<uv_handle_t>?, _ count: UnsafeMutableRawPointer?
) {
  if uv_is_closing(handle) == 0 { count!.assumingMemoryBound(to: Int.self).pointee += 1 }
}

private final class Flag: Sendable {
  private let value = Atomic<Bool>(false)
  var isSet: Bool { value.load(ordering: .acquiring) }
  func set() { value.store(true, ordering: .releasing) }
}

/// The error `operation` throws; fails the test if it returns or throws something else.
func httpError(
  file: StaticString = #filePath, line: UInt = #line,
  _ operation: () async throws -> HTTPResponse
) async -> HTTPError? {
  do {
    let response = try await operation()
    XCTFail("expected an HTTPError, got status \(response.status)", file: file, line: line)
  } catch let error as HTTPError {
    return error
  } catch {
    XCTFail("expected an HTTPError, got \(error)", file: file, line: line)
  }
  return nil
}

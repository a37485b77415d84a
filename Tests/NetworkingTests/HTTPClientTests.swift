import EventLoop
import Foundation
import Networking
import XCTest

final class HTTPClientTests: XCTestCase {
  func testGetReturnsStatusHeadersAndBody() throws {
    try withHTTPFixture { fixture in
      let url = fixture.url("/todos/7")
      let response = try await fixture.client.get(url, timeout: .seconds(5))
      XCTAssertEqual(response.status, 200)
      XCTAssertEqual(response.url, url)
      XCTAssertEqual(response.headers["content-type"], "application/json")
      XCTAssertEqual(response.headers["content-length"], String(response.body.count))
      let todo = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
      XCTAssertEqual(todo?["id"] as? Int, 7)
      XCTAssertEqual(todo?["userId"] as? Int, 1)
      XCTAssertEqual(todo?["completed"] as? Bool, false)
    }
  }

  func testHostNamesAreResolved() throws {
    try withHTTPFixture { fixture in
      let url = fixture.url("/todos/2").replacingOccurrences(of: "127.0.0.1", with: "localhost")
      let response = try await fixture.client.get(url, timeout: .seconds(5))
      XCTAssertEqual(response.url, url)
      XCTAssertTrue(response.body.starts(with: Array(#"{"userId":1,"id":2,"#.utf8)))
    }
  }

  func testNotFoundThrowsStatusErrorWithTheBody() throws {
    try withHTTPFixture { fixture in
      let url = fixture.url("/todos/0")
      let error = await httpError { try await fixture.client.get(url, timeout: .seconds(5)) }
      XCTAssertEqual(error?.kind, .status(404, body: Array("{}".utf8)))
      XCTAssertEqual(error?.status, 404)
      XCTAssertEqual(error?.url, url)
      XCTAssertEqual(error?.description, "HTTP status 404: \(url): {}")
    }
  }

  func testInjectedServerErrorCarriesItsBody() throws {
    try withHTTPFixture { fixture in
      let url = fixture.url("/_fail/status=503/todos/1")
      let error = await httpError { try await fixture.client.get(url, timeout: .seconds(5)) }
      XCTAssertEqual(error?.status, 503)
      XCTAssertEqual(error?.message, #"{"error": "injected status 503"}"#)
    }
  }

  func testRefusedConnectionThrowsConnectionFailed() throws {
    try withHTTPFixture { fixture in
      let url = "http://127.0.0.1:\(closedPort())/todos/1"
      let error = await httpError { try await fixture.client.get(url, timeout: .seconds(5)) }
      XCTAssertEqual(error?.kind, .connectionFailed)
      XCTAssertEqual(error?.url, url)
      XCTAssertTrue(
        error?.message.contains("Couldn't connect to server") ?? false, error?.message ?? "no error"
      )
    }
  }

  func testTimeoutThrowsTimedOutAndClosesTheConnection() throws {
    try withHTTPFixture { fixture in
      let path = "/_fail/delay=5000/todos/1"
      let started = ContinuousClock.now
      let error = await httpError {
        try await fixture.client.get(fixture.url(path), timeout: .milliseconds(300))
      }
      let elapsed = ContinuousClock.now - started
      XCTAssertEqual(error?.kind, .timedOut)
      XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(290))
      XCTAssertLessThan(elapsed, .seconds(2))
      let outcome = try await fixture.settledOutcome(of: path)
      XCTAssertEqual(outcome, "client-gone")
    }
  }

  func testCancellationDropsTheTransferAtOnce() throws {
    try withHTTPFixture { fixture in
      let path = "/_fail/hang/todos/1"
      let client = fixture.client
      let url = fixture.url(path)
      let request = Task(executorPreference: fixture.loop.executor) {
        try await client.get(url, timeout: .seconds(30))
      }
      try await fixture.waitUntilReceived(path)
      let cancelled = ContinuousClock.now
      request.cancel()
      let result = await request.result
      let elapsed = ContinuousClock.now - cancelled
      XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
      XCTAssertLessThan(elapsed, .milliseconds(250))
      let outcome = try await fixture.settledOutcome(of: path)
      XCTAssertEqual(outcome, "client-gone")
    }
  }

  func testCancelledTaskSendsNoRequest() throws {
    try withHTTPFixture { fixture in
      let client = fixture.client
      let url = fixture.url("/todos/1")
      let request = Task(executorPreference: fixture.loop.executor) {
        withUnsafeCurrentTask { $0?.cancel() }
        return try await client.get(url, timeout: .seconds(5))
      }
      let result = await request.result
      XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
      let log = try await fixture.requests()
      XCTAssertEqual(log, [])
    }
  }

  func testResetConnectionThrowsConnectionFailed() throws {
    try withHTTPFixture { fixture in
      let url = fixture.url("/_fail/reset/todos/1")
      let error = await httpError { try await fixture.client.get(url, timeout: .seconds(5)) }
      XCTAssertEqual(error?.kind, .connectionFailed)
      XCTAssertTrue(
        error?.message.contains("Connection reset by peer") ?? false, error?.message ?? "")
    }
  }

  func testTruncatedBodyThrowsConnectionFailed() throws {
    try withHTTPFixture { fixture in
      let url = fixture.url("/_fail/truncated/todos/1")
      let error = await httpError { try await fixture.client.get(url, timeout: .seconds(5)) }
      XCTAssertEqual(error?.kind, .connectionFailed)
      XCTAssertTrue(
        error?.message.contains("bytes remaining to read") ?? false, error?.message ?? "")
    }
  }

  func testMalformedBodyArrivesAsIsForTheDecoderToReject() throws {
    try withHTTPFixture { fixture in
      let url = fixture.url("/_fail/malformed/todos/1")
      let response = try await fixture.client.get(url, timeout: .seconds(5))
      XCTAssertEqual(response.body, Array(#"{"id": 1, "title": "#.utf8))
      XCTAssertThrowsError(try JSONSerialization.jsonObject(with: Data(response.body)))
      let error = HTTPError.undecodable(url: url, message: "unexpected end of input")
      XCTAssertEqual(error.kind, .undecodable)
      XCTAssertEqual(error.description, "body not decodable: \(url): unexpected end of input")
    }
  }

  func testBodyOverTheLimitThrowsTooLarge() throws {
    try withHTTPFixture(configuration: HTTPConfiguration(maxResponseBytes: 2000)) { fixture in
      let client = fixture.client
      // Announced by Content-Length: curl refuses before reading the body.
      let announced = fixture.url("/_bytes/100000")
      let error = await httpError {
        try await client.get(announced, timeout: .seconds(5), maxBodyBytes: 1000)
      }
      XCTAssertEqual(error?.kind, .tooLarge(limit: 1000))
      // Chunked, with no length: the body callback stops the transfer.
      let chunked = fixture.url("/_bytes/100000?chunked=1")
      let error2 = await httpError {
        try await client.get(chunked, timeout: .seconds(5), maxBodyBytes: 1000)
      }
      XCTAssertEqual(error2?.kind, .tooLarge(limit: 1000))
      // The configuration's limit applies when the request sets none.
      let error3 = await httpError {
        try await client.get(fixture.url("/_bytes/2001?chunked=1"), timeout: .seconds(5))
      }
      XCTAssertEqual(error3?.kind, .tooLarge(limit: 2000))
      let exact = try await client.get(fixture.url("/_bytes/2000"), timeout: .seconds(5))
      XCTAssertEqual(exact.body, Array(repeating: UInt8(ascii: "x"), count: 2000))
    }
  }

  func testRedirectsAreFollowedUpToTheLimit() throws {
    try withHTTPFixture { fixture in
      let response = try await fixture.client.get(
        fixture.url("/_redirect/5"), timeout: .seconds(5))
      XCTAssertEqual(response.url, fixture.url("/_redirect/0"))
      XCTAssertEqual(response.body, Array(#"{"redirects":0}"#.utf8))
      let url = fixture.url("/_redirect/6")
      let error = await httpError { try await fixture.client.get(url, timeout: .seconds(5)) }
      XCTAssertEqual(error?.kind, .tooManyRedirects)
      XCTAssertEqual(error?.url, url)
    }
  }

  func testRedirectLimitComesFromTheConfiguration() throws {
    try withHTTPFixture(configuration: HTTPConfiguration(maxRedirects: 1)) { fixture in
      _ = try await fixture.client.get(fixture.url("/_redirect/1"), timeout: .seconds(5))
      let error = await httpError {
        try await fixture.client.get(fixture.url("/_redirect/2"), timeout: .seconds(5))
      }
      XCTAssertEqual(error?.kind, .tooManyRedirects)
    }
  }

  func testInvalidURLsThrowBeforeAnyRequest() throws {
    try withHTTPFixture { fixture in
      for url in ["", "not a url", "127.0.0.1/todos/1", "ftp://127.0.0.1/file", "http://"] {
        let error = await httpError { try await fixture.client.get(url, timeout: .seconds(5)) }
        XCTAssertEqual(error?.kind, .invalidURL, url)
        XCTAssertEqual(error?.url, url)
      }
      let log = try await fixture.requests()
      XCTAssertEqual(log, [])
    }
  }

  func testKeepAliveReusesOneConnection() throws {
    try withHTTPFixture { fixture in
      for id in 1...5 {
        _ = try await fixture.client.get(fixture.url("/todos/\(id)"), timeout: .seconds(5))
      }
      let log = try await fixture.requests()
      XCTAssertEqual(log.count, 5)
      XCTAssertEqual(Set(log.map(\.connection)).count, 1, "\(log)")
    }
  }

  func testAPostSendsItsBodyAndContentType() throws {
    try withHTTPFixture { fixture in
      let request = HTTPRequest(
        .post, fixture.url("/_echo"), body: Array(#"{"a":[1,2]}"#.utf8),
        contentType: "application/json")
      let response = try await fixture.client.send(request, timeout: .seconds(5))
      XCTAssertEqual(
        try echo(response),
        ["method": "POST", "contentType": "application/json", "body": #"{"a":[1,2]}"#])
    }
  }

  func testOtherMethodsAreSentAsGivenAndAPostWithoutBodySendsAnEmptyOne() throws {
    try withHTTPFixture { fixture in
      var seen: [[String: String]] = []
      for request in [
        HTTPRequest(.put, fixture.url("/_echo"), body: Array("x".utf8), contentType: "text/plain"),
        HTTPRequest(.patch, fixture.url("/_echo"), body: []),
        HTTPRequest(.delete, fixture.url("/_echo")),
        HTTPRequest(.post, fixture.url("/_echo")),
      ] {
        seen.append(try echo(try await fixture.client.send(request, timeout: .seconds(5))))
      }
      XCTAssertEqual(
        seen,
        [
          ["method": "PUT", "contentType": "text/plain", "body": "x"],
          ["method": "PATCH", "body": ""],
          ["method": "DELETE", "body": ""],
          ["method": "POST", "body": ""],
        ])
      // Keep-alive held: each body was read whole, so the next request started where it ended.
      let log = try await fixture.requests()
      XCTAssertEqual(Set(log.map(\.connection)).count, 1, "\(log)")
    }
  }

  func testALargeBodyArrivesWhole() throws {
    try withHTTPFixture { fixture in
      let body = Array(repeating: UInt8(ascii: "y"), count: 3 << 20)
      let request = HTTPRequest(.post, fixture.url("/_echo"), body: body)
      let response = try await fixture.client.send(request, timeout: .seconds(20))
      XCTAssertEqual(try echo(response)["body"]?.utf8.count, body.count)
    }
  }

  func testHundredConcurrentRequestsAllComplete() throws {
    try withHTTPFixture { fixture in
      let client = fixture.client
      let ids = try await withThrowingTaskGroup(of: Int.self) { group in
        for id in 1...100 {
          let url = fixture.url("/todos/\(id)")
          group.addTask {
            let response = try await client.get(url, timeout: .seconds(20))
            let todo = try JSONSerialization.jsonObject(with: Data(response.body))
            return (todo as? [String: Any])?["id"] as? Int ?? -1
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      XCTAssertEqual(ids.sorted(), Array(1...100))
      let log = try await fixture.requests()
      XCTAssertEqual(log.filter { $0.outcome == "answered" }.count, 100)
    }
  }

  func testShutdownCancelsPendingRequestsAndClosesEveryHandle() throws {
    try withHTTPFixture { fixture in
      let loop = fixture.loop
      let client = HTTPClient(loop: loop)
      _ = try await client.get(fixture.url("/todos/1"), timeout: .seconds(5))
      let path = "/_fail/hang/todos/2"
      let url = fixture.url(path)
      let pending = Task(executorPreference: loop.executor) {
        try await client.get(url, timeout: .seconds(30))
      }
      try await fixture.waitUntilReceived(path)
      await client.shutdown()
      let result = await pending.result
      XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
      do {
        _ = try await client.get(fixture.url("/todos/1"), timeout: .seconds(5))
        XCTFail("a request after shutdown() succeeded")
      } catch {
        XCTAssertTrue(error is CancellationError, "\(error)")
      }
      let outcome = try await fixture.settledOutcome(of: path)
      XCTAssertEqual(outcome, "client-gone")
      // withHTTPFixture then shuts down the fixture's own client and checks that the loop ends
      // with no handle of either client left.
    }
  }
}

/// A TCP port on 127.0.0.1 that nothing listens on (it was just bound and released).
private func closedPort() -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      _ = bind(fd, $0, length)
      _ = getsockname(fd, $0, &length)
    }
  }
  return Int(UInt16(bigEndian: address.sin_port))
}

/// The fixture's `/_echo` answer: method, content type (when sent) and body.
private func echo(_ response: HTTPResponse) throws -> [String: String] {
  let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
  return (object ?? [:]).compactMapValues { $0 as? String }
}

import ComposableRuntime
import ComposableTestSupport
import Networking
import XCTest

/// `HTTPService` over a fetch closure: the requests it builds, and how every failure becomes a
/// `RequestFailure`.
final class HTTPServiceTests: XCTestCase {
  private struct Todo: Codable, Equatable {
    var id: Int
    var title: String
  }

  /// A service whose fetch records each request and answers `answer`.
  private func service(
    _ answer: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
  ) -> (HTTPService, LockedBox<[HTTPRequest]>) {
    let seen = LockedBox<[HTTPRequest]>([])
    let http = HTTPService(timeout: .seconds(1)) { request, _ in
      seen.append(request)
      return try answer(request)
    }
    return (http, seen)
  }

  private static func ok(_ body: String, url: String = "http://h/x") -> HTTPResponse {
    HTTPResponse(status: 200, headers: [:], body: Array(body.utf8), url: url)
  }

  func testSendPostsTheJSONBodyAndDecodesTheAnswer() async throws {
    let (http, seen) = service { _ in Self.ok(#"[{"id":2,"title":"b"}]"#) }
    let answer = try await http.send(
      .post, to: "http://h/todos/sync", json: [Todo(id: 1, title: "a")], decoding: [Todo].self)
    XCTAssertEqual(answer, [Todo(id: 2, title: "b")])
    XCTAssertEqual(
      seen.value,
      [
        HTTPRequest(
          .post, "http://h/todos/sync", body: Array(#"[{"id":1,"title":"a"}]"#.utf8),
          contentType: "application/json")
      ])
  }

  func testGetSendsNoBodyAndAnAnswerThatIsNotJSONIsADecodingFailure() async throws {
    let (http, seen) = service { _ in Self.ok("<html>") }
    do {
      _ = try await http.get(Todo.self, from: "http://h/todos/1")
      XCTFail("expected a failure")
    } catch let failure as RequestFailure {
      XCTAssertEqual(failure.kind, .decoding)
      XCTAssertEqual(failure.url, "http://h/todos/1")
      XCTAssertTrue(failure.message.hasPrefix("the body is not JSON: "), failure.message)
    }
    XCTAssertEqual(seen.value, [HTTPRequest(.get, "http://h/todos/1")])
  }

  func testResponseReturnsAnyBodyAndMapsTheClientsErrors() async throws {
    let (http, seen) = service { request in
      guard request.method == .delete else {
        throw HTTPError(.status(404, body: []), url: request.url, message: "gone")
      }
      return HTTPResponse(status: 204, headers: [:], body: [], url: request.url)
    }
    let deleted = try await http.response(to: HTTPRequest(.delete, "http://h/todos/7"))
    XCTAssertEqual(deleted.status, 204)
    do {
      _ = try await http.response(to: HTTPRequest(.put, "http://h/todos/7", body: []))
      XCTFail("expected a failure")
    } catch let failure as RequestFailure {
      XCTAssertEqual(failure.kind, .status)
      XCTAssertEqual(failure.url, "http://h/todos/7")
    }
    XCTAssertEqual(seen.value.map(\.method), [.delete, .put])
  }

  func testABodyIsEncodedAsStatesAreANonFiniteNumberAsNull() async throws {
    let (http, seen) = service { _ in Self.ok("1") }
    _ = try await http.send(.post, to: "http://h/x", json: [1.5, .nan], decoding: Int.self)
    XCTAssertEqual(seen.value.map(\.body), [Array("[1.5,null]".utf8)])
  }
}

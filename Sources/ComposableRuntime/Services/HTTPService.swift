import JSON
import Networking

/// Sends HTTP requests and decodes their JSON answers; every failure is a ``/ComposableDependencies/RequestFailure``,
/// so features see one error type whatever went wrong.
///
/// ```swift
/// let todo = try await http.get(Todo.self, from: "\(baseURL)/todos/7")
/// let merged = try await http.send(.post, to: "\(baseURL)/todos/sync", json: todos, decoding: [Todo].self)
/// let deleted = try await http.response(to: HTTPRequest(.delete, "\(baseURL)/todos/7"))
/// ```
public struct HTTPService: Sendable {
  /// Sends a request within a timeout; throws `HTTPError` for every failure of the request.
  public typealias Fetch =
    @Sendable (_ request: HTTPRequest, _ timeout: Duration) async throws ->
    HTTPResponse

  let fetch: Fetch
  /// For each whole request, connecting and redirects included.
  let timeout: Duration

  /// Requests through `fetch`: the product's client, or canned answers in a scenario.
  public init(timeout: Duration, fetch: @escaping Fetch) {
    self.fetch = fetch
    self.timeout = timeout
  }

  /// Requests through `client`, each within `timeout`: what `run` builds.
  package init(client: HTTPClient, timeout: Duration) {
    self.init(timeout: timeout) { request, timeout in
      try await client.send(request, timeout: timeout)
    }
  }

  /// GETs `url` and decodes its JSON body as `T`; throws a ``/ComposableDependencies/RequestFailure`` for every
  /// failure, the request's or the decoding's.
  public func get<T: Decodable>(_ type: T.Type, from url: String) async throws -> T {
    try await decoding(T.self, HTTPRequest(.get, url))
  }

  /// Sends `body` as JSON (`Content-Type: application/json`) with `method`, and decodes the
  /// JSON answer as `T`; throws a ``/ComposableDependencies/RequestFailure`` for every failure, the request's or the
  /// decoding's. The body is encoded as states are: a non-finite number becomes `null`, as
  /// JavaScript's `JSON.stringify` writes it.
  public func send<Body: Encodable, T: Decodable>(
    _ method: HTTPMethod, to url: String, json body: Body, decoding type: T.Type
  ) async throws -> T {
    let encoded = try JSONValueEncoder().encode(body)
    let request = HTTPRequest(
      method, url, body: encoded.serialized, contentType: "application/json")
    return try await decoding(T.self, request)
  }

  /// Sends `request` as it is and returns the response whatever its body, for what the JSON
  /// helpers do not cover (a DELETE answered with 204, a body that is not JSON); throws a
  /// ``/ComposableDependencies/RequestFailure`` for every failure of the request, a status outside 2xx included.
  ///
  /// ```swift
  /// _ = try await http.response(to: HTTPRequest(.delete, "\(baseURL)/todos/7"))
  /// ```
  public func response(to request: HTTPRequest) async throws -> HTTPResponse {
    do {
      return try await fetch(request, timeout)
    } catch let error as HTTPError {
      throw RequestFailure(error)
    }
  }

  private func decoding<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) async throws -> T {
    let url = request.url
    let response = try await response(to: request)
    do {
      return try JSONBytesDecoder().decode(T.self, from: response.body)
    } catch let error as JSONParseError {
      throw RequestFailure(kind: .decoding, url: url, message: "the body is not JSON: \(error)")
    } catch let error as DecodingError {
      throw RequestFailure(
        kind: .decoding, url: url, message: "unexpected JSON: \(error.contextMessage)")
    }
  }
}

extension RequestFailure {
  init(_ error: HTTPError) {
    let kind: Kind =
      switch error.kind {
      case .invalidURL: .invalidURL
      case .connectionFailed: .connectionFailed
      case .timedOut: .timedOut
      case .tls: .tls
      case .status: .status
      case .tooLarge: .tooLarge
      case .tooManyRedirects: .tooManyRedirects
      case .undecodable: .decoding
      }
    self.init(kind: kind, url: error.url, message: error.description)
  }
}

/// Why an HTTP request failed; `HTTPClient.get` throws this or `CancellationError`.
package struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
  package enum Kind: Sendable, Equatable {
    /// Not an absolute http or https URL.
    case invalidURL
    /// No connection, or the connection broke: refused, unresolvable host, reset, truncated or
    /// empty response; also when libcurl itself cannot be loaded, which the message names.
    case connectionFailed
    /// The request's timeout passed before the response was complete.
    case timedOut
    /// The TLS handshake failed, most often because the server's certificate is not trusted.
    case tls
    /// The server answered with a status outside 2xx; `body` holds at most
    /// `HTTPError.maxStatusBodyBytes` of its body.
    case status(Int, body: [UInt8])
    /// The body was larger than the limit, in bytes.
    case tooLarge(limit: Int)
    /// The redirect limit (`HTTPConfiguration.maxRedirects`) was reached.
    case tooManyRedirects
    /// The body arrived but could not be decoded; thrown by the layers that decode it.
    case undecodable
  }

  /// How much of a non-2xx response's body is kept, enough for an error message.
  package static let maxStatusBodyBytes = 4096

  package var kind: Kind
  /// The URL that was requested.
  package var url: String
  /// Details for people, such as curl's error text.
  package var message: String

  package init(_ kind: Kind, url: String, message: String) {
    self.kind = kind
    self.url = url
    self.message = message
  }

  /// For a body that arrived but did not decode, such as JSON of the wrong shape.
  package static func undecodable(url: String, message: String) -> HTTPError {
    HTTPError(.undecodable, url: url, message: message)
  }

  /// The status of a non-2xx response, else `nil`.
  package var status: Int? {
    if case .status(let code, _) = kind { return code }
    return nil
  }

  package var description: String {
    let summary =
      switch kind {
      case .invalidURL: "invalid URL"
      case .connectionFailed: "connection failed"
      case .timedOut: "timed out"
      case .tls: "TLS failure"
      case .status(let code, _): "HTTP status \(code)"
      case .tooLarge(let limit): "response larger than \(limit) bytes"
      case .tooManyRedirects: "too many redirects"
      case .undecodable: "body not decodable"
      }
    return message.isEmpty ? "\(summary): \(url)" : "\(summary): \(url): \(message)"
  }
}

extension HTTPError.Kind {
  /// The failures a scenario's canned answer can give, by the name it uses
  /// (`{"http":{…,"failure":"timedOut"}}`), which is also how a recording writes them.
  package static let byName: [String: HTTPError.Kind] = [
    "invalidURL": .invalidURL, "connectionFailed": .connectionFailed, "timedOut": .timedOut,
    "tls": .tls, "tooLarge": .tooLarge(limit: 8 << 20), "tooManyRedirects": .tooManyRedirects,
  ]

  /// The name of a failure that is not a status (nor a body that did not decode, which the
  /// layers above the transport report).
  package var name: String? {
    switch self {
    case .invalidURL: "invalidURL"
    case .connectionFailed: "connectionFailed"
    case .timedOut: "timedOut"
    case .tls: "tls"
    case .tooLarge: "tooLarge"
    case .tooManyRedirects: "tooManyRedirects"
    case .status, .undecodable: nil
    }
  }
}

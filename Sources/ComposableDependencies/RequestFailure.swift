/// Why a request to a server gave no usable answer, in the form features keep in their state.
///
/// Features depend on this interface, not on the HTTP client: the live dependencies translate
/// the client's errors into it, and tests construct it directly.
public struct RequestFailure: Error, Equatable, Codable, Sendable, CustomStringConvertible {
  /// What went wrong, as a scenario or a feature tells failures apart; on the wire its name
  /// (`"timedOut"`).
  public enum Kind: String, Codable, Sendable, CaseIterable {
    /// The URL could not be used (malformed, unsupported scheme).
    case invalidURL
    /// No connection, or it broke before a whole response arrived.
    case connectionFailed
    /// The request's timeout (`--http-timeout`) passed before the response was complete.
    case timedOut
    /// The TLS handshake failed, including an untrusted certificate.
    case tls
    /// The server answered with a status other than 2xx.
    case status
    /// The response's body passed the limit (8 MiB).
    case tooLarge
    /// The server redirected more than 5 times.
    case tooManyRedirects
    /// The response arrived but its body is not what the feature expects.
    case decoding
  }

  /// What went wrong.
  public var kind: Kind
  /// The URL that failed.
  public var url: String
  /// For people: a summary of the kind, the URL, and the details (curl's error text, a
  /// status's body); the runtime's article on HTTP requests lists the texts.
  public var message: String

  /// A failure as a test or a dependency of the store's own states it.
  public init(kind: Kind, url: String, message: String) {
    self.kind = kind
    self.url = url
    self.message = message
  }

  public var description: String { message }

}

extension RequestFailure {
  /// The error a dependency threw, as a failure: itself when it is one already. Anything else
  /// is a dependency's bug, kept readable rather than lost.
  public init(_ error: any Error) {
    self =
      error as? RequestFailure
      ?? RequestFailure(kind: .connectionFailed, url: "", message: "\(error)")
  }
}

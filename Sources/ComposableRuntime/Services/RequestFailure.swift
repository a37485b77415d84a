/// Why a request to a server gave no usable answer, in the form features keep in their state.
///
/// Features depend on this interface, not on the HTTP client: the live dependencies translate
/// the client's errors into it, and tests construct it directly.
public struct RequestFailure: Error, Equatable, Codable, Sendable, CustomStringConvertible {
  public enum Kind: String, Codable, Sendable, CaseIterable {
    /// The URL could not be used (malformed, unsupported scheme).
    case invalidURL
    /// No connection, or it broke before a whole response arrived.
    case connectionFailed
    case timedOut
    /// The TLS handshake failed, including an untrusted certificate.
    case tls
    /// The server answered with a status other than 2xx.
    case status
    case tooLarge
    case tooManyRedirects
    /// The response arrived but its body is not what the feature expects.
    case decoding
  }

  public var kind: Kind
  /// The URL that failed.
  public var url: String
  public var message: String

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

/// A response with a 2xx status, after redirects.
public struct HTTPResponse: Sendable, Equatable {
  public var status: Int

  /// The final response's headers by lower-cased name; a repeated header's values are joined
  /// with ", " (RFC 9110, section 5.3).
  public var headers: [String: String]

  public var body: [UInt8]

  /// The URL that answered, after redirects.
  public var url: String

  public init(status: Int, headers: [String: String], body: [UInt8], url: String) {
    self.status = status
    self.headers = headers
    self.body = body
    self.url = url
  }
}

/// What a request sends: a method, a URL and, for the methods that carry one, a body with its
/// media type.
///
/// ```swift
/// let request = HTTPRequest(.post, "http://127.0.0.1:8765/todos/sync",
///                           body: Array(#"[{"id":1}]"#.utf8), contentType: "application/json")
/// let response = try await client.send(request, timeout: .seconds(10))
/// ```
public struct HTTPRequest: Sendable, Equatable {
  public var method: HTTPMethod
  public var url: String
  /// Sent as is, with `Content-Length`; `nil` sends none (an empty body for POST, PUT and PATCH).
  public var body: [UInt8]?
  /// The `Content-Type` header of the body.
  public var contentType: String?

  public init(
    _ method: HTTPMethod = .get, _ url: String, body: [UInt8]? = nil, contentType: String? = nil
  ) {
    self.method = method
    self.url = url
    self.body = body
    self.contentType = contentType
  }
}

/// An HTTP method (RFC 9110, section 9): a token, sent as given.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let get = HTTPMethod(rawValue: "GET")
  public static let post = HTTPMethod(rawValue: "POST")
  public static let put = HTTPMethod(rawValue: "PUT")
  public static let patch = HTTPMethod(rawValue: "PATCH")
  public static let delete = HTTPMethod(rawValue: "DELETE")

  public var description: String { rawValue }

  /// Whether it is a token of RFC 9110's `tchar`s, the only form a request line may carry.
  var isToken: Bool {
    !rawValue.isEmpty
      && rawValue.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"):
          true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
      }
  }

  /// Methods whose request has a body even when none is given: curl would otherwise read one
  /// from standard input.
  var sendsBody: Bool { self == .post || self == .put || self == .patch }
}

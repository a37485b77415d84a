/// A `ws://` or `wss://` URL, split the way a connect needs it (RFC 6455 section 3).
struct WebSocketURL: Equatable {
  var isSecure: Bool
  /// The host name or IP address, without the brackets of an IPv6 literal.
  var host: String
  var port: Int
  /// The resource name sent in the request line: the path (at least "/") and the query.
  var resource: String

  /// Parses `string`; nil unless it is a ws or wss URL with a host, a valid port and no
  /// fragment (RFC 6455 forbids fragments).
  init?(_ string: String) {
    guard let schemeEnd = string.firstRange(of: "://") else { return nil }
    switch string[..<schemeEnd.lowerBound].lowercased() {
    case "ws": isSecure = false
    case "wss": isSecure = true
    default: return nil
    }
    let rest = string[schemeEnd.upperBound...]
    guard !rest.contains("#") else { return nil }
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    let resource = rest[authorityEnd...]
    self.resource = resource.hasPrefix("/") ? String(resource) : "/" + resource
    guard !authority.contains("@") else { return nil }

    let portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = String(authority[authority.index(after: authority.startIndex)..<close])
      let afterHost = authority[authority.index(after: close)...]
      guard afterHost.isEmpty || afterHost.hasPrefix(":") else { return nil }
      portText = afterHost.isEmpty ? nil : afterHost.dropFirst()
    } else if let colon = authority.firstIndex(of: ":") {
      host = String(authority[..<colon])
      portText = authority[authority.index(after: colon)...]
    } else {
      host = String(authority)
      portText = nil
    }
    guard !host.isEmpty else { return nil }
    if let portText {
      guard let port = Int(portText), (1...65_535).contains(port) else { return nil }
      self.port = port
    } else {
      port = isSecure ? 443 : 80
    }
  }

  /// The Host header: the port only when it is not the scheme's default.
  var hostHeader: String {
    let name = host.contains(":") ? "[\(host)]" : host
    return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
  }
}

import EventLoop
import Glibc

/// Turns a host name into numeric addresses on libuv's thread pool.
///
/// lws 4.1 (without its optional async DNS) calls a blocking `getaddrinfo` on the loop thread;
/// resolving here first and handing lws a numeric address keeps a slow DNS server from
/// stalling every store. lws still gets the name as the Host header, for SNI and for the
/// certificate's host name check.
enum HostResolver {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// The addresses `host` resolves to, in the resolver's order of preference, or `host`
  /// itself when it is an IP literal.
  @Sendable
  static func addresses(for host: String, on loop: EventLoop) async throws -> [String] {
    if isIPLiteral(host) { return [host] }
    return try await loop.threadPool.run { _ in try resolve(host) }
  }

  static func isIPLiteral(_ host: String) -> Bool {
    var storage = in6_addr()
    return inet_pton(AF_INET, host, &storage) == 1 || inet_pton(AF_INET6, host, &storage) == 1
  }

  private static func resolve(_ host: String) throws -> [String] {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var results: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, nil, &hints, &results)
    guard status == 0 else {
      throw Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
    }
    defer { freeaddrinfo(results) }
    var addresses: [String] = []
    var next = results
    while let result = next {
      if let address = numeric(result.pointee), !addresses.contains(address) {
        addresses.append(address)
      }
      next = result.pointee.ai_next
    }
    guard !addresses.isEmpty else { throw Failure(description: "cannot resolve \(host)") }
    return addresses
  }

  private static func numeric(_ result: addrinfo) -> String? {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let converted: UnsafePointer<CChar>?
    switch result.ai_family {
    case AF_INET6:
      converted = result.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
        withUnsafePointer(to: ipv6.pointee.sin6_addr) {
          inet_ntop(AF_INET6, $0, &text, socklen_t(text.count))
        }
      }
    case AF_INET:
      converted = result.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
        withUnsafePointer(to: ipv4.pointee.sin_addr) {
          inet_ntop(AF_INET, $0, &text, socklen_t(text.count))
        }
      }
    default:
      return nil
    }
    guard converted != nil else { return nil }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// What an MCP resource URI names: the stores' description, or one instance's state.
///
/// ```swift
/// MCPResource(uri: "composable-actor://primes/state")                  // .state("primes", nil)
/// MCPResource(uri: "composable-actor://primes/instances/user%2042/state")  // key "user 42"
/// ```
@_spi(Hosting)
public enum MCPResource: Equatable, Sendable {
  case describe
  case state(store: String, instance: InstanceKey?)

  public static let scheme = "composable-actor://"
  public static let describeURI = scheme + "describe"

  /// Nil for a URI that names nothing of this form (the store and key are checked by the
  /// caller, against the session).
  public init?(uri: String) {
    guard uri.hasPrefix(Self.scheme) else { return nil }
    let path = uri.dropFirst(Self.scheme.count).split(
      separator: "/", omittingEmptySubsequences: false)
    switch path.count {
    case 1 where path[0] == "describe":
      self = .describe
    case 2 where path[1] == "state" && !path[0].isEmpty:
      guard let store = Self.percentDecoded(path[0]) else { return nil }
      self = .state(store: store, instance: nil)
    case 4 where path[1] == "instances" && path[3] == "state" && !path[0].isEmpty:
      guard let store = Self.percentDecoded(path[0]), let key = Self.percentDecoded(path[2]),
        let instance = try? InstanceKey(validating: key)
      else { return nil }
      self = .state(store: store, instance: instance)
    default:
      return nil
    }
  }

  public var uri: String {
    switch self {
    case .describe:
      Self.describeURI
    case .state(let store, nil):
      Self.scheme + percentEncoded(store) + "/state"
    case .state(let store, let instance?):
      Self.scheme + percentEncoded(store) + "/instances/"
        + percentEncoded(instance.value) + "/state"
    }
  }

  /// The template a client fills with an instance's key.
  public static func instanceTemplate(store: String) -> String {
    scheme + percentEncoded(store) + "/instances/{instance}/state"
  }

  /// Nil for a broken escape or bytes that are not UTF-8.
  static func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var index = text.utf8.startIndex
    let utf8 = text.utf8
    while index < utf8.endIndex {
      let byte = utf8[index]
      if byte == UInt8(ascii: "%") {
        let high = utf8.index(after: index)
        guard high < utf8.endIndex, utf8.index(after: high) < utf8.endIndex,
          let value = UInt8(
            String(decoding: utf8[high...utf8.index(after: high)], as: UTF8.self), radix: 16)
        else { return nil }
        bytes.append(value)
        index = utf8.index(high, offsetBy: 2)
      } else {
        bytes.append(byte)
        index = utf8.index(after: index)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }
}

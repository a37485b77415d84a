import JSON

/// The MCP tools of a set of stores: one per action a host sends, named so that every client
/// takes the name.
///
/// ```swift
/// let tools = MCPTools(stores: session.descriptors)
/// tools.named["primes__counter_incrTapped"]?.action  // "counter.incrTapped"
/// ```
@_spi(Hosting)
public struct MCPTools: Sendable {
  /// One tool: the action it sends, to which store, and how a client sees it.
  public struct Tool: Sendable {
    public let name: String
    public let store: String
    public let action: String
    public let summary: String
    public let payload: [ActionDescriptor.Field]
    /// False when the action has a payload field of that name, which then is the payload's.
    public let takesInstance: Bool

    /// The `tools/list` entry.
    public var json: JSONValue {
      var properties = JSONObject()
      for field in payload { properties[field.name] = field.schema }
      if takesInstance {
        properties[MCPTools.instanceArgument] = [
          "type": "string",
          "description": .string(
            "The named instance of the store to send the action to; the store's default "
              + "instance when absent."),
        ]
      }
      var schema: JSONObject = ["type": "object", "properties": .object(properties)]
      let required = payload.filter(\.isRequired).map { JSONValue.string($0.name) }
      if !required.isEmpty { schema["required"] = .array(required) }
      if !payload.isEmpty || takesInstance { schema["additionalProperties"] = false }
      return [
        "name": .string(name),
        "title": .string("\(store): \(action)"),
        "description": .string(summary),
        "inputSchema": .object(schema),
      ]
    }
  }

  /// The tools in the order of the stores, then of each store's actions.
  public let tools: [Tool]
  public let named: [String: Tool]

  /// The argument that names an instance.
  public static let instanceArgument = "instance"
  /// The longest name MCP clients accept (`^[A-Za-z0-9_-]{1,64}$`).
  public static let maxNameLength = 64

  public init(stores: [StoreDescriptor]) {
    var tools: [Tool] = []
    var taken = Set<String>()
    for store in stores {
      for action in store.actions where action.sentBy == .host {
        let name = Self.uniqueName(store: store.name, action: action.type, taken: taken)
        taken.insert(name)
        tools.append(
          Tool(
            name: name, store: store.name, action: action.type, summary: action.summary,
            payload: action.payload,
            takesInstance: !action.payload.contains { $0.name == Self.instanceArgument }))
      }
    }
    self.tools = tools
    self.named = Dictionary(uniqueKeysWithValues: tools.map { ($0.name, $0) })
  }

  /// `store__action` with every character outside `[A-Za-z0-9_-]` (the action's dots) as `_`.
  /// A name that is too long or already taken (two types that differ only where characters
  /// were replaced) keeps its first 55 characters and gains `_` and eight hex digits of a hash
  /// of the store and type as written: the same stores always get the same names.
  static func uniqueName(store: String, action: String, taken: Set<String>) -> String {
    let plain = sanitized(store) + "__" + sanitized(action)
    if plain.utf8.count <= maxNameLength && !taken.contains(plain) { return plain }
    let stem = String(plain.prefix(maxNameLength - 9))
    var salt = 0
    while true {
      let hash = fnv1a(Array("\(store)\u{0}\(action)\u{0}\(salt)".utf8))
      let name = stem + "_" + hex8(hash)
      if !taken.contains(name) { return name }
      salt += 1
    }
  }

  static func sanitized(_ text: String) -> String {
    String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { scalar in
          switch scalar {
          case "A"..."Z", "a"..."z", "0"..."9", "_", "-": scalar
          default: "_"
          }
        }))
  }

  /// FNV-1a, 32 bits: stable across processes, unlike `Hasher`.
  private static func fnv1a(_ bytes: [UInt8]) -> UInt32 {
    var hash: UInt32 = 0x811C_9DC5
    for byte in bytes {
      hash ^= UInt32(byte)
      hash = hash &* 0x0100_0193
    }
    return hash
  }

  private static func hex8(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }
}

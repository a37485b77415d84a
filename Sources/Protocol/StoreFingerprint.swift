import JSON

/// What a recording remembers of each store's interface, so that a replay by a binary whose
/// stores changed since can say what changed before it re-reduces anything:
///
/// ```json
/// {"actions":{"counter.incrTapped":"9c1b…","counter.countChanged":"04de…"},
///  "state":{"count":"5a0f…","favoritePrimes":"e3c2…"}}
/// ```
/// Each action's digest covers who sends it and its payload's fields and schemas; each state
/// field's, its schema. Summaries are left out: a reworded description changes no behaviour.
@_spi(Hosting)
public struct StoreFingerprint: Equatable, Sendable {
  public var actions: [String: String]
  public var state: [String: String]

  public init(_ descriptor: StoreDescriptor) {
    var actions: [String: String] = [:]
    for action in descriptor.actions {
      let payload: [JSONValue] = action.payload.map {
        ["name": .string($0.name), "schema": $0.schema, "required": .bool($0.isRequired)]
      }
      actions[action.type] = Self.digest(
        ["sentBy": .string(action.sentBy.rawValue), "payload": .array(payload)])
    }
    self.actions = actions
    self.state = Self.stateDigests(descriptor.stateSchema)
  }

  /// Each field of a state schema's digest: the part of the fingerprint a stored state must
  /// match to be read back (see ``stateDifferences(from:to:)``).
  public static func stateDigests(_ stateSchema: JSONValue) -> [String: String] {
    var state: [String: String] = [:]
    if case .object(let properties)? = stateSchema["properties"] {
      for (name, schema) in properties { state[name] = digest(schema) }
    }
    return state
  }

  /// Reads what `json` wrote; nil for anything else.
  public init?(json: JSONValue) {
    guard let actions = Self.digests(json["actions"]), let state = Self.digests(json["state"])
    else { return nil }
    self.actions = actions
    self.state = state
  }

  public var json: JSONValue {
    ["actions": Self.object(actions), "state": Self.object(state)]
  }

  /// ``stateDigests(_:)`` as the text a state folder keeps of them.
  public static func stateText(_ digests: [String: String]) -> String {
    String(decoding: object(digests).serialized, as: UTF8.self)
  }

  /// What differs between the state digests a folder keeps as `text` (``stateText(_:)``) and
  /// `current`, one phrase each; empty when they match. Text that holds no digests differs.
  public static func stateDifferences(stored text: String, current: [String: String])
    -> [String]
  {
    guard let recorded = digests(try? JSONParser.parse(text)) else {
      return ["the stored fingerprint is unreadable"]
    }
    return stateDifferences(from: recorded, to: current)
  }

  private static func digests(_ value: JSONValue?) -> [String: String]? {
    guard case .object(let object)? = value else { return nil }
    var digests: [String: String] = [:]
    for (key, value) in object {
      guard let digest = value.stringValue else { return nil }
      digests[key] = digest
    }
    return digests
  }

  private static func object(_ digests: [String: String]) -> JSONValue {
    .object(JSONObject(digests.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
  }

  /// What differs in `current` from this recorded fingerprint, one phrase each, in a stable
  /// order: the actions, then the state's fields.
  public func differences(from current: StoreFingerprint) -> [String] {
    Self.compare(actions, current.actions, "action")
      + Self.stateDifferences(from: state, to: current.state)
  }

  /// What differs between two ``stateDigests(_:)``, one phrase per state field.
  public static func stateDifferences(
    from recorded: [String: String], to current: [String: String]
  ) -> [String] {
    compare(recorded, current, "state field")
  }

  private static func compare(
    _ recorded: [String: String], _ now: [String: String], _ noun: String
  ) -> [String] {
    var found: [String] = []
    for name in Set(recorded.keys).union(now.keys).sorted() {
      switch (recorded[name], now[name]) {
      case (nil, _?): found.append("\(noun) \(name) is new")
      case (_?, nil): found.append("\(noun) \(name) is gone")
      case (let before?, let after?) where before != after:
        found.append("\(noun) \(name) changed")
      default: break
      }
    }
    return found
  }

  /// 64-bit FNV-1a of the value's JSON, in hex: short, stable, and enough to tell a change.
  private static func digest(_ value: JSONValue) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in value.serialized {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }
}

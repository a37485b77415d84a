import JSON
@_spi(Hosting) import Protocol

/// One instance of one store, as recordings and scenarios name it: `store` and, for a named
/// instance, its key.
struct InstanceAddress: Hashable, CustomStringConvertible {
  let store: String
  /// Nil for the store's default instance.
  let instance: InstanceKey?

  init(_ store: String, _ instance: InstanceKey? = nil) {
    self.store = store
    self.instance = instance
  }

  /// `primes`, or `primes "alice"` for a named instance: how reports name it.
  var description: String {
    instance.map { "\(store) \(JSONValue.string($0.value).jsonString)" } ?? store
  }

  /// `"store":…,"instance":…`: its members in a line, in that order.
  var members: JSONObject {
    var members: JSONObject = ["store": .string(store)]
    if let instance { members["instance"] = .string(instance.value) }
    return members
  }

  /// The `instance` member of `object`, a recording's or a scenario's line: absent for the
  /// default instance; what is wrong with it otherwise.
  static func instance(in object: JSONValue) throws(ProtocolError) -> InstanceKey? {
    try InputMessage.instance(object["instance"])
  }
}

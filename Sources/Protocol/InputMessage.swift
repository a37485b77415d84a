import JSON

/// One input line, checked: an action for a store, or a command.
///
/// ```json
/// {"store":"primes","action":{"type":"counter.incrTapped"},"id":7}
/// {"store":"primes","action":"counter.incrTapped"}
/// {"store":"todos","instance":"user-42","action":"addTapped"}
/// {"cmd":"snapshot","store":"primes"}
/// ```
@_spi(Hosting)
public enum InputMessage: Sendable, Equatable {
  /// `instance` is nil for the store's default instance.
  case action(store: String, instance: InstanceKey? = nil, action: JSONValue, id: MessageID?)
  case command(name: String, arguments: JSONObject, id: MessageID?)

  /// Reads the envelope of `value`, parsed from `line`. On failure the error carries the `id`
  /// when it could be read, so the error line can still be matched to its request.
  public init(_ value: JSONValue, line: UnsafeRawBufferPointer) throws(InputError) {
    guard case .object(let object) = value else {
      throw InputError(
        id: nil, ProtocolError(.invalidMessage, "a message must be a JSON object"))
    }
    let id = try Self.id(object["id"], in: line)
    func fail(_ code: ErrorCode, _ message: String) -> InputError {
      InputError(id: id, ProtocolError(code, message))
    }
    if let command = object["cmd"] {
      guard case .string(let name) = command else {
        throw fail(.invalidMessage, "\"cmd\" must be a string")
      }
      var arguments = object
      arguments["cmd"] = nil
      arguments["id"] = nil
      self = .command(name: name, arguments: arguments, id: id)
      return
    }
    guard let store = object["store"] else {
      throw fail(.invalidMessage, "a message needs \"store\" (an action) or \"cmd\" (a command)")
    }
    guard case .string(let store) = store else {
      throw fail(.invalidMessage, "\"store\" must be a string")
    }
    guard let action = object["action"] else {
      throw fail(.invalidMessage, "an action message needs an \"action\"")
    }
    // Over the members themselves: this runs for every action, and `keys` would be an array.
    for (key, _) in object
    where key != "store" && key != "action" && key != "id" && key != "instance" {
      throw fail(.invalidMessage, "unknown field \"\(key)\" in an action message")
    }
    do {
      self = .action(
        store: store, instance: try Self.instance(object["instance"]), action: action, id: id)
    } catch {
      throw InputError(id: id, error)
    }
  }

  /// The `instance` member of a message (or another `member` holding a key): absent for the
  /// default instance, else a valid key.
  public static func instance(_ value: JSONValue?, member: String = "instance")
    throws(ProtocolError) -> InstanceKey?
  {
    guard let value else { return nil }
    guard case .string(let key) = value else {
      throw ProtocolError(
        .invalidMessage, "\"\(member)\" must be a string, got \(value.briefDescription)")
    }
    return try InstanceKey(validating: key, member: member)
  }

  private static func id(_ value: JSONValue?, in line: UnsafeRawBufferPointer)
    throws(InputError) -> MessageID?
  {
    guard let value else { return nil }
    guard let id = MessageID(value, in: line) else {
      throw InputError(
        id: nil, ProtocolError(.invalidMessage, "\"id\" must be a string or a number"))
    }
    let length = id.byteCount
    guard length <= MessageID.maxBytes else {
      throw InputError(
        id: nil,
        ProtocolError(
          .invalidMessage,
          "\"id\" must be at most \(MessageID.maxBytes) bytes as written, got \(length)"))
    }
    return id
  }
}
/// Why an input line was refused, with its `id` if it had a readable one, and the store and
/// instance it named when it named an instance (an error line about a named instance says
/// which).
@_spi(Hosting)
public struct InputError: Error, Sendable {
  public let id: MessageID?
  public let error: ProtocolError
  public let store: String?
  public let instance: InstanceKey?

  public init(
    id: MessageID?, _ error: ProtocolError, store: String? = nil, instance: InstanceKey? = nil
  ) {
    self.id = id
    self.error = error
    self.store = store
    self.instance = instance
  }
}

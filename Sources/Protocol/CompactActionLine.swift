@_spi(Hosting) import JSON

#if canImport(Glibc)
  import Glibc
#endif

/// The common action line, read straight from its bytes without building a JSON document:
///
/// ```json
/// {"store":"primes","action":"counter.incrTapped"}
/// {"store": "primes", "action": {"type": "counter.incrTapped"}, "id": 7}
/// {"store":"todos","instance":"user-42","action":"addTapped"}
/// {"store":"primes","action":{"type":"counter.countChanged","value":7}}
/// ```
///
/// Members `store`, `action`, an optional `instance` and an optional `id` in any order, JSON whitespace anywhere,
/// strings of ASCII without escapes or control characters, an integer `id` (kept as written). An
/// action with a payload is any object, which the general parser reads on its own. Anything
/// else gives nil, and the line goes through the general parser instead; for the lines it
/// accepts, ``message`` is exactly the one the general path makes (a property test and the
/// fuzz target check both).
///
/// The store's name and a payload-free action's type stay bytes of the line: a store that has
/// seen the type before finds its action by them, and no string is made.
@_spi(Hosting)
public struct CompactActionLine {
  /// The store's name: bytes of the line, valid while the line is.
  public let store: UnsafeRawBufferPointer
  public let action: Action
  /// Nil for the store's default instance.
  public let instance: InstanceKey?
  public let id: MessageID?

  public init?(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) {
    var reader = CompactReader(bytes: bytes)
    guard let line = reader.readAction(maxDepth: maxDepth) else { return nil }
    self = line
  }

  /// A line's action.
  public enum Action {
    /// A payload-free action's type: bytes of the line, valid while the line is; `isObject`
    /// when it came as `{"type":…}` rather than as the bare type string.
    case type(UnsafeRawBufferPointer, isObject: Bool)
    /// An action object with a payload, parsed.
    case payload(JSONValue)
  }

  fileprivate init(
    store: UnsafeRawBufferPointer, action: Action, instance: InstanceKey?, id: MessageID?
  ) {
    self.store = store
    self.action = action
    self.instance = instance
    self.id = id
  }

  /// The message the general path reads from the same line.
  public var message: InputMessage {
    let value: JSONValue
    switch action {
    case .type(let bytes, let isObject):
      let type = JSONValue.string(String(decoding: bytes, as: UTF8.self))
      value = isObject ? .object(["type": type]) : type
    case .payload(let action):
      value = action
    }
    return .action(
      store: String(decoding: store, as: UTF8.self), instance: instance, action: value, id: id)
  }
}

private struct CompactReader {
  let bytes: UnsafeRawBufferPointer
  var position = 0

  init(bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  mutating func readAction(maxDepth: Int) -> CompactActionLine? {
    guard maxDepth >= 1, take(UInt8(ascii: "{")) else { return nil }
    var store: UnsafeRawBufferPointer?
    var action: CompactActionLine.Action?
    var id: MessageID?
    var instance: InstanceKey?
    repeat {
      guard let key = plainBytes(), take(UInt8(ascii: ":")) else { return nil }
      switch Key(key) {
      case .store? where store == nil:
        store = plainBytes()
        guard store != nil else { return nil }
      case .action? where action == nil:
        action = readAction(maxDepth: maxDepth)
        guard action != nil else { return nil }
      case .id? where id == nil:
        // Both forms are JSON text as they stand: a string of plain ASCII, or an integer. One
        // longer than an id may be is refused by the general path.
        if let string = plainBytes() {
          guard string.count + 2 <= MessageID.maxBytes else { return nil }
          id = MessageID(plainASCII: string)
        } else if let number = integer(), number.count <= MessageID.maxBytes {
          id = MessageID(text: number)
        } else {
          return nil
        }
      case .instance? where instance == nil:
        // A key the general path would refuse (empty, too long, DEL) is refused there.
        guard let key = plainBytes(), let valid = InstanceKey(plainASCII: key) else { return nil }
        instance = valid
      default:
        // Another member, or a repeated one: the general path decides what that means.
        return nil
      }
    } while take(UInt8(ascii: ","))
    guard take(UInt8(ascii: "}")), isAtEnd(), let store, let action else { return nil }
    return CompactActionLine(store: store, action: action, instance: instance, id: id)
  }

  /// `"type"` or `{"type":"type"}`, or any other object, which the general parser reads.
  private mutating func readAction(maxDepth: Int) -> CompactActionLine.Action? {
    if let type = plainBytes() { return .type(type, isObject: false) }
    guard maxDepth >= 2 else { return nil }
    let start = position
    if take(UInt8(ascii: "{")), let key = plainBytes(), Key(key) == .type,
      take(UInt8(ascii: ":")), let type = plainBytes(), take(UInt8(ascii: "}"))
    {
      return .type(type, isObject: true)
    }
    position = start
    skipWhitespace()
    guard position < bytes.count, bytes[position] == UInt8(ascii: "{"),
      case .object(let object)? = try? JSONParser.parseValue(
        bytes, at: &position, maxDepth: maxDepth - 1)
    else { return nil }
    return .payload(.object(object))
  }

  /// The content of a string of ASCII without escapes or control characters, after optional
  /// whitespace.
  private mutating func plainBytes() -> UnsafeRawBufferPointer? {
    skipWhitespace()
    guard position < bytes.count, bytes[position] == UInt8(ascii: "\""),
      let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    else { return nil }
    let start = position + 1
    let end = ByteScan.plainASCIIEnd(base, from: start, count: bytes.count)
    guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
    position = end + 1
    return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
  }

  /// The token of an integer, `0` or digits without a leading zero, optionally negative but not
  /// `-0`: kept as written, it is the id's text.
  private mutating func integer() -> UnsafeRawBufferPointer? {
    skipWhitespace()
    var cursor = position
    let negative = cursor < bytes.count && bytes[cursor] == UInt8(ascii: "-")
    if negative { cursor += 1 }
    let digitsStart = cursor
    while cursor < bytes.count, bytes[cursor] >= UInt8(ascii: "0"),
      bytes[cursor] <= UInt8(ascii: "9")
    {
      cursor += 1
    }
    guard cursor > digitsStart else { return nil }
    // A leading zero, `-0`, or a fraction or exponent next: not this reader's business.
    if bytes[digitsStart] == UInt8(ascii: "0"), cursor - digitsStart > 1 || negative { return nil }
    if cursor < bytes.count,
      bytes[cursor] == UInt8(ascii: ".") || bytes[cursor] | 0x20 == UInt8(ascii: "e")
    {
      return nil
    }
    defer { position = cursor }
    return UnsafeRawBufferPointer(rebasing: bytes[position..<cursor])
  }

  /// Skips whitespace, then consumes `byte` if it is next.
  private mutating func take(_ byte: UInt8) -> Bool {
    skipWhitespace()
    guard position < bytes.count, bytes[position] == byte else { return false }
    position += 1
    return true
  }

  private mutating func isAtEnd() -> Bool {
    skipWhitespace()
    return position == bytes.count
  }

  private mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
        position += 1
      default:
        return
      }
    }
  }
}

/// The member names the compact reader knows, matched on their bytes.
private enum Key {
  case store, action, id, type, instance

  init?(_ bytes: UnsafeRawBufferPointer) {
    if Self.matches(bytes, "store") {
      self = .store
    } else if Self.matches(bytes, "action") {
      self = .action
    } else if Self.matches(bytes, "id") {
      self = .id
    } else if Self.matches(bytes, "type") {
      self = .type
    } else if Self.matches(bytes, "instance") {
      self = .instance
    } else {
      return nil
    }
  }

  private static func matches(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
    guard bytes.count == name.utf8CodeUnitCount else { return false }
    for index in 0..<bytes.count where bytes[index] != name.utf8Start[index] { return false }
    return true
  }
}

extension UnsafeRawBufferPointer {
  /// Whether these are the bytes of `other`: for finding a store or an action by the bytes of
  /// a compact action line.
  func hasSameBytes(as other: [UInt8]) -> Bool {
    guard count == other.count else { return false }
    return other.withUnsafeBytes { other in
      count == 0 || memcmp(baseAddress!, other.baseAddress!, count) == 0
    }
  }
}

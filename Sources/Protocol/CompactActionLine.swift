import JSON

extension InputMessage {
  /// Reads the common action line straight from its bytes, without building a JSON document:
  ///
  /// ```json
  /// {"store":"primes","action":"counter.incrTapped"}
  /// {"store": "primes", "action": {"type": "counter.incrTapped"}, "id": 7}
  /// ```
  ///
  /// Members `store`, `action` and an optional `id` in any order, JSON whitespace anywhere,
  /// strings of printable ASCII without escapes, an integer `id` of up to 15 digits. Anything
  /// else gives nil, and the line goes through the general parser instead; for the lines it
  /// accepts, the message is exactly the one the general path makes (a property test and the
  /// fuzz target check both).
  public init?(compactAction bytes: UnsafeRawBufferPointer, maxDepth: Int) {
    var reader = CompactReader(bytes: bytes)
    guard let message = reader.readAction(maxDepth: maxDepth) else { return nil }
    self = message
  }
}

private struct CompactReader {
  let bytes: UnsafeRawBufferPointer
  var position = 0

  init(bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  mutating func readAction(maxDepth: Int) -> InputMessage? {
    guard maxDepth >= 1, take(UInt8(ascii: "{")) else { return nil }
    var store: String?
    var action: JSONValue?
    var id: JSONValue?
    repeat {
      guard let key = plainBytes(), take(UInt8(ascii: ":")) else { return nil }
      switch Key(key) {
      case .store? where store == nil:
        store = plainString()
        guard store != nil else { return nil }
      case .action? where action == nil:
        action = actionValue(maxDepth: maxDepth)
        guard action != nil else { return nil }
      case .id? where id == nil:
        id = plainString().map(JSONValue.string) ?? integer()
        guard id != nil else { return nil }
      default:
        // Another member, or a repeated one: the general path decides what that means.
        return nil
      }
    } while take(UInt8(ascii: ","))
    guard take(UInt8(ascii: "}")), isAtEnd(), let store, let action else { return nil }
    return .action(store: store, action: action, id: id)
  }

  /// `"type"` or `{"type":"type"}`.
  private mutating func actionValue(maxDepth: Int) -> JSONValue? {
    if let type = plainString() { return .string(type) }
    guard maxDepth >= 2, take(UInt8(ascii: "{")), let key = plainBytes(), Key(key) == .type,
      take(UInt8(ascii: ":")), let type = plainString(), take(UInt8(ascii: "}"))
    else { return nil }
    return .object(["type": .string(type)])
  }

  private mutating func plainString() -> String? {
    plainBytes().map { String(decoding: $0, as: UTF8.self) }
  }

  /// The content of a string of printable ASCII other than `"` and `\`, after optional
  /// whitespace.
  private mutating func plainBytes() -> UnsafeRawBufferPointer? {
    skipWhitespace()
    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
    let start = position + 1
    var end = start
    while end < bytes.count {
      let byte = bytes[end]
      if byte == UInt8(ascii: "\"") {
        position = end + 1
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
      }
      guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
      end += 1
    }
    return nil
  }

  /// `0` or a nonzero integer of at most 15 digits, which every JSON reader holds exactly.
  private mutating func integer() -> JSONValue? {
    skipWhitespace()
    var cursor = position
    let negative = cursor < bytes.count && bytes[cursor] == UInt8(ascii: "-")
    if negative { cursor += 1 }
    let digitsStart = cursor
    var value = 0
    while cursor < bytes.count, let digit = Self.digit(bytes[cursor]) {
      // Past 15 digits the general parser decides; stopping here also keeps `value` in range.
      guard cursor - digitsStart < 15 else { return nil }
      value = value * 10 + digit
      cursor += 1
    }
    guard cursor > digitsStart else { return nil }
    let digitCount = cursor - digitsStart
    // A leading zero, `-0`, or a fraction or exponent next: not this reader's business.
    if bytes[digitsStart] == UInt8(ascii: "0"), digitCount > 1 || negative { return nil }
    if cursor < bytes.count,
      bytes[cursor] == UInt8(ascii: ".") || bytes[cursor] | 0x20 == UInt8(ascii: "e")
    {
      return nil
    }
    position = cursor
    return .int(negative ? -value : value)
  }

  private static func digit(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
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
  case store, action, id, type

  init?(_ bytes: UnsafeRawBufferPointer) {
    if Self.matches(bytes, "store") {
      self = .store
    } else if Self.matches(bytes, "action") {
      self = .action
    } else if Self.matches(bytes, "id") {
      self = .id
    } else if Self.matches(bytes, "type") {
      self = .type
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

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
/// action whose payload members are such strings, integers, booleans or nulls, or objects and
/// arrays of them, stays text too (``ActionText``), for the store to read its fields straight
/// from it; any other action object is read by the general parser on its own. Anything
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

  /// Reads `bytes`, or throws ``NotCompact`` for a line the general parser is to read.
  ///
  /// Throwing rather than failable, here and in the reader: an optional of this type was
  /// destroyed through the runtime's metadata (its optional's generic witness), about 190
  /// instructions of every line read, where the type itself is destroyed by its own code.
  public init(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) throws(NotCompact) {
    var reader = CompactReader(bytes: bytes)
    self = try reader.readAction(maxDepth: maxDepth)
  }

  /// A line the compact reader does not take: the general parser reads it and says what is
  /// wrong with it, if anything is.
  public struct NotCompact: Error {}

  /// A line's action.
  public enum Action {
    /// A payload-free action's type: bytes of the line, valid while the line is; `isObject`
    /// when it came as `{"type":…}` rather than as the bare type string.
    case type(UnsafeRawBufferPointer, isObject: Bool)
    /// An action object whose payload is scalars, as text of the line.
    case text(ActionText)
    /// Any other action object with a payload, parsed.
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
    case .text(let text):
      // The reader took only text the parser reads.
      value = try! JSONParser.parse(text.bytes, maxDepth: text.depth)
    case .payload(let action):
      value = action
    }
    return .action(
      store: String(decoding: store, as: UTF8.self), instance: instance, action: value, id: id)
  }
}

private struct CompactReader {
  typealias NotCompact = CompactActionLine.NotCompact

  let bytes: UnsafeRawBufferPointer
  var position = 0
  /// Whether whitespace was seen in the action object being read.
  private var sawWhitespace = false

  init(bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  mutating func readAction(maxDepth: Int) throws(NotCompact)
    -> CompactActionLine
  {
    guard maxDepth >= 1, take(UInt8(ascii: "{")) else { throw NotCompact() }
    var store: UnsafeRawBufferPointer?
    var action: CompactActionLine.Action?
    var id: MessageID?
    var instance: InstanceKey?
    repeat {
      guard let key = plainBytes(), take(UInt8(ascii: ":")) else {
        throw NotCompact()
      }
      switch Key(key) {
      case .store? where store == nil:
        store = plainBytes()
        guard store != nil else { throw NotCompact() }
      case .action? where action == nil:
        action = readAction(maxDepth: maxDepth)
        guard action != nil else { throw NotCompact() }
      case .id? where id == nil:
        // Both forms are JSON text as they stand: a string of plain ASCII, or an integer. One
        // longer than an id may be is refused by the general path.
        if let string = plainBytes() {
          guard string.count + 2 <= MessageID.maxBytes else { throw NotCompact() }
          id = MessageID(plainASCII: string)
        } else if let number = integer(), number.count <= MessageID.maxBytes {
          id = MessageID(text: number)
        } else {
          throw NotCompact()
        }
      case .instance? where instance == nil:
        // A key the general path would refuse (empty, too long, DEL) is refused there.
        guard let key = plainBytes(), let valid = InstanceKey(plainASCII: key) else {
          throw NotCompact()
        }
        instance = valid
      default:
        // Another member, or a repeated one: the general path decides what that means.
        throw NotCompact()
      }
    } while take(UInt8(ascii: ","))
    guard take(UInt8(ascii: "}")), isAtEnd(), let store, let action else {
      throw NotCompact()
    }
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
    let objectStart = position
    if let text = actionText(depthLeft: maxDepth - 1), text.memberCount > 1 { return .text(text) }
    position = objectStart
    guard position < bytes.count, bytes[position] == UInt8(ascii: "{"),
      case .object(let object)? = try? JSONParser.parseValue(
        bytes, at: &position, maxDepth: maxDepth - 1)
    else { return nil }
    return .payload(.object(object))
  }

  /// An action object of a plain string `type` and payload members whose keys are plain
  /// strings and whose values are plain (scalars, or ``skipContainer(depthLeft:)``), no key twice;
  /// nil for anything else. `depthLeft` counts the object itself.
  mutating func actionText(depthLeft: Int) -> ActionText? {
    skipWhitespace()
    let start = position
    sawWhitespace = false
    var keys = KeyNotes()
    guard let (memberCount, depth) = skipPlainObject(depthLeft: depthLeft, notes: &keys),
      let type = keys.type
    else { return nil }
    return ActionText(
      bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), type: type,
      memberCount: memberCount, typeIsFirst: keys.typeIsFirst,
      namesUnlabelledValue: keys.namesUnlabelledValue, isCompact: !sawWhitespace, depth: depth)
  }

  /// What an action object's keys say, noted as they are read.
  private struct KeyNotes {
    /// The content of a `type` member that is a plain string.
    var type: UnsafeRawBufferPointer?
    var typeIsFirst = false
    /// Whether a member is called `_0`.
    var namesUnlabelledValue = false
  }

  /// Skips an object under the cursor whose keys are plain strings, none twice, and whose
  /// values are plain, noting what its keys say in `notes`. Its member count and how deep it
  /// goes (1 for an object of scalars), or nil for anything else.
  private mutating func skipPlainObject(
    depthLeft: Int, notes: inout KeyNotes
  ) -> (memberCount: Int, depth: Int)? {
    guard depthLeft >= 1, take(UInt8(ascii: "{")) else { return nil }
    noteWhitespace()
    if take(UInt8(ascii: "}")) { return (0, 1) }
    // Each key is compared with the keys before it, kept here. Looking it up in the object's
    // text walked every earlier member's value again for each key, at every depth: a crafted
    // line of 900 KB took seconds.
    return withUnsafeTemporaryAllocation(
      of: UnsafeRawBufferPointer.self, capacity: ActionText.maxMembers
    ) { keys in
      var memberCount = 0
      var depth = 1
      repeat {
        noteWhitespace()
        guard memberCount < ActionText.maxMembers, let key = plainBytes() else { return nil }
        noteWhitespace()
        guard take(UInt8(ascii: ":")) else { return nil }
        noteWhitespace()
        for earlier in keys[..<memberCount] where earlier.hasSameBytes(as: key) { return nil }
        keys.initializeElement(at: memberCount, to: key)
        if key.count == 2, key[0] == UInt8(ascii: "_"), key[1] == UInt8(ascii: "0") {
          notes.namesUnlabelledValue = true
        }
        if Key(key) == .type, let string = plainBytes() {
          notes.type = string
          notes.typeIsFirst = memberCount == 0
        } else if !skipScalar() {
          guard let valueDepth = skipContainer(depthLeft: depthLeft - 1) else { return nil }
          depth = max(depth, valueDepth + 1)
        }
        memberCount += 1
        noteWhitespace()
      } while take(UInt8(ascii: ","))
      guard take(UInt8(ascii: "}")) else { return nil }
      return (memberCount, depth)
    }
  }

  /// Skips an object or an array of plain values (a plain string, an integer the parser reads
  /// as an `Int`, a literal, or such an object or array) at most `depthLeft` deep. How deep it
  /// went, or nil for anything else.
  private mutating func skipContainer(depthLeft: Int) -> Int? {
    skipWhitespace()
    guard position < bytes.count else { return nil }
    if bytes[position] == UInt8(ascii: "{") {
      var notes = KeyNotes()
      return skipPlainObject(depthLeft: depthLeft, notes: &notes)?.depth
    }
    guard depthLeft >= 1, take(UInt8(ascii: "[")) else { return nil }
    noteWhitespace()
    if take(UInt8(ascii: "]")) { return 1 }
    var depth = 1
    repeat {
      noteWhitespace()
      if !skipScalar() {
        guard let elementDepth = skipContainer(depthLeft: depthLeft - 1) else { return nil }
        depth = max(depth, elementDepth + 1)
      }
      noteWhitespace()
    } while take(UInt8(ascii: ","))
    return take(UInt8(ascii: "]")) ? depth : nil
  }

  /// Notes whitespace where it may be, before a token, rather than in `skipWhitespace`, which
  /// every line's reading runs.
  private mutating func noteWhitespace() {
    if position < bytes.count, ActionText.isWhitespace(bytes[position]) { sawWhitespace = true }
  }

  /// Skips a plain string, an integer the parser reads as an `Int`, or a literal.
  @inline(__always)
  private mutating func skipScalar() -> Bool {
    if plainBytes() != nil { return true }
    if let number = integer() {
      // 18 digits always fit `Int`; longer ones are left to the parser.
      return number.count <= (number.first == UInt8(ascii: "-") ? 19 : 18)
    }
    // Not a loop over an array of the three: the array was allocated at every call.
    return take(literal: "true") || take(literal: "false") || take(literal: "null")
  }

  private mutating func take(literal: StaticString) -> Bool {
    let length = literal.utf8CodeUnitCount
    guard bytes.count - position >= length,
      memcmp(bytes.baseAddress! + position, literal.utf8Start, length) == 0
    else { return false }
    position += length
    return true
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
    // By length first: each length has one name, so a key is compared with one name at most.
    switch bytes.count {
    case 5 where Self.matches(bytes, "store"): self = .store
    case 6 where Self.matches(bytes, "action"): self = .action
    case 2 where Self.matches(bytes, "id"): self = .id
    case 4 where Self.matches(bytes, "type"): self = .type
    case 8 where Self.matches(bytes, "instance"): self = .instance
    default: return nil
    }
  }

  private static func matches(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
    memcmp(bytes.baseAddress!, name.utf8Start, bytes.count) == 0
  }
}

extension UnsafeRawBufferPointer {
  /// Whether these are the bytes of `other`: for finding a store or an action by the bytes of
  /// a compact action line.
  func hasSameBytes(as other: [UInt8]) -> Bool {
    other.withUnsafeBytes { hasSameBytes(as: $0) }
  }

  func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
    count == other.count && (count == 0 || memcmp(baseAddress!, other.baseAddress!, count) == 0)
  }
}

/// An action object as text of its line, whose payload members are plain strings, integers
/// that fit `Int`, booleans or nulls, or objects and arrays of them (``CompactActionLine``): its
/// store reads the fields it needs from the bytes, without building a JSON document. Valid
/// while the line is.
@_spi(Hosting)
public struct ActionText {
  /// The object, `{` to `}`.
  public let bytes: UnsafeRawBufferPointer
  /// The content of its `type` string.
  let type: UnsafeRawBufferPointer
  /// How many members it has, `type` included.
  let memberCount: Int
  let typeIsFirst: Bool
  /// Whether a member is called `_0`, an unlabelled value's own name, which the general path
  /// reads: noted by the reader, so that reading `value` needs no search for it.
  let namesUnlabelledValue: Bool
  /// Whether it holds no whitespace, so that it is the very bytes `JSONValue.write` makes of
  /// it: every other token of such an object is written back as it stands.
  let isCompact: Bool
  /// How deep it goes: 1 for an object of scalars.
  let depth: Int

  /// Fields are marked used in a 64-bit set.
  static let maxMembers = 64

  /// A member's value: its token, and its position among the members.
  struct Member {
    let index: Int
    /// The token, a string with its quotes, or an object or array with its brackets.
    let token: UnsafeRawBufferPointer
  }

  /// The member called `name`, found by scanning the text, which the reader has checked.
  func member(named name: UnsafeRawBufferPointer) -> Member? {
    var position = 1
    var index = 0
    while index < memberCount {
      position = skipWhitespace(from: position) + 1
      let keyStart = position
      while bytes[position] != UInt8(ascii: "\"") { position += 1 }
      let key = UnsafeRawBufferPointer(rebasing: bytes[keyStart..<position])
      position = skipWhitespace(from: skipWhitespace(from: position + 1) + 1)
      let valueStart = position
      if bytes[position] == UInt8(ascii: "\"") {
        position += 1
        while bytes[position] != UInt8(ascii: "\"") { position += 1 }
        position += 1
      } else if bytes[position] == UInt8(ascii: "{") || bytes[position] == UInt8(ascii: "[") {
        position = containerEnd(from: position)
      } else {
        while !Self.endsToken(bytes[position]) { position += 1 }
      }
      if key.count == name.count, memcmp(key.baseAddress!, name.baseAddress!, key.count) == 0 {
        return Member(
          index: index, token: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<position]))
      }
      position = skipWhitespace(from: position) + 1
      index += 1
    }
    return nil
  }

  /// The end of the object or array that starts at `start`. Its strings have no escapes, so
  /// that a quote always opens or closes one.
  private func containerEnd(from start: Int) -> Int {
    var position = start
    var open = 0
    var inString = false
    repeat {
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        inString.toggle()
      } else if !inString {
        if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { open += 1 }
        if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { open -= 1 }
      }
      position += 1
    } while open > 0
    return position
  }

  private func skipWhitespace(from start: Int) -> Int {
    var position = start
    while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
    return position
  }

  private static func endsToken(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || isWhitespace(byte)
  }

  fileprivate static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
      || byte == UInt8(ascii: "\r")
  }
}

extension ActionText {
  /// The action object `token`, a field of another action's text, read as the line's was.
  init?(field token: UnsafeRawBufferPointer) {
    var reader = CompactReader(bytes: token)
    // Its depth was checked with the line's.
    guard let text = reader.actionText(depthLeft: .max), reader.position == token.count else {
      return nil
    }
    self = text
  }
}

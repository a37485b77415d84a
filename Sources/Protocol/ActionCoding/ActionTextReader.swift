import ComposableCore
import JSON

/// Reads an action straight from its text on the line (``ActionText``), as the decoding the
/// `@ComposableAction` macro writes asks: the type path and each field from the bytes, with no
/// JSON document, no decoder object and no field list allocated.
///
/// It reads what it can read exactly as ``ActionDecoder`` does: fields of `Int`, `String` and
/// `Bool` (optional or not) from their tokens, any other field with ``JSONBytesDecoder`` (which
/// decodes as ``JSONValueDecoder`` does), child actions along the path, and an action held in a
/// field in its object form, by a reader of its own, all under the same rules of names.
/// Every error it leaves to the general path (``ActionTextReader/Deferred``),
/// which then reads the action again and says what is wrong: the error texts, the strictness
/// and the answer to whether the action round-trips live there alone.
struct ActionTextReader: ActionWireReader {
  /// Thrown where the general path must read the action.
  struct Deferred: Error {}

  private let text: ActionText
  /// Where the next case name starts in the type path; nil once every name is used.
  private var nextCaseStart: Int? = 0
  private var caseName = ""
  private var level = 0
  /// The members used so far, by position, and how many.
  private var usedMembers: UInt64 = 0
  private var usedCount = 0
  /// Whether the fields were used in the order of the members, after `type`, so far.
  private var inOrder = true
  /// False once a case name or a field was read from text the encoder would not write back as
  /// it stands (``ActionDecoder``'s rules).
  private var readsBack = true
  /// The level whose `_0` was read from `"value"`, and the levels where other fields were read.
  private var valueAliasLevel: Int?
  private var otherFieldLevels: UInt64 = 0

  init(_ text: ActionText) {
    self.text = text
  }

  /// Checks that the path and the fields were used up; then whether encoding the action gives
  /// back its text's members in order (``ActionDecoder/roundTrips``).
  func finish() throws(Deferred) -> Bool {
    guard nextCaseStart == nil, usedCount == text.memberCount - 1 else { throw Deferred() }
    let loneValues = valueAliasLevel.map { otherFieldLevels & (1 << $0) == 0 } ?? true
    return readsBack && text.typeIsFirst && inOrder && loneValues
  }

  mutating func nextCaseName(of action: Any.Type) throws -> String {
    guard let start = nextCaseStart else { throw Deferred() }
    let path = text.type
    var end = start
    while end < path.count, path[end] != UInt8(ascii: ".") { end += 1 }
    nextCaseStart = end == path.count ? nil : end + 1
    caseName = String(decoding: UnsafeRawBufferPointer(rebasing: path[start..<end]), as: UTF8.self)
    return caseName
  }

  mutating func enterCase(_ name: String) -> Int {
    // Case names match by Unicode equivalence, and the encoder writes the case's own spelling.
    if readsBack, !name.hasSameUTF8(as: caseName) { readsBack = false }
    level += 1
    return level
  }

  func unknownCase(of action: Any.Type) -> any Error { Deferred() }

  mutating func value<Value: Decodable>(_ type: Value.Type, key: String, level: Int) throws
    -> Value
  {
    if let action = ActionDecoder.actionType(Value.self) {
      return try self.value(action, key: key, level: level) as! Value
    }
    return try field(Value.self, key: key, level: level)
  }

  mutating func valueIfPresent<Value: Decodable>(_ type: Value.Type, key: String, level: Int)
    throws -> Value?
  {
    if let action = ActionDecoder.actionType(Value.self) {
      return try valueIfPresent(action, key: key, level: level) as! Value?
    }
    return try field(Value?.self, key: key, level: level)
  }

  mutating func value<Action: ComposableAction>(_ type: Action.Type, key: String, level: Int)
    throws -> Action
  {
    if key == "_0" { return try Action.decodeAction(from: &self) }
    return try actionField(Action.self, from: use(key: key, level: level))
  }

  mutating func valueIfPresent<Action: ComposableAction>(
    _ type: Action.Type, key: String, level: Int
  ) throws -> Action? {
    if key == "_0" { return nextCaseStart == nil ? nil : try Action.decodeAction(from: &self) }
    let token = try use(key: key, level: level)
    return WireKind(token: token) == .null ? nil : try actionField(Action.self, from: token)
  }

  /// A field's token as an action in its object form, read by a reader of its own. (The bare
  /// type string, which never reads back, is left to the general path.) Not inlined: the
  /// child action along the path, the common case, stays a direct call.
  @inline(never)
  private mutating func actionField<Action: ComposableAction>(
    _ type: Action.Type, from token: UnsafeRawBufferPointer
  ) throws -> Action {
    guard let text = ActionText(field: token) else { throw Deferred() }
    var reader = ActionTextReader(text)
    let action = try Action.decodeAction(from: &reader)
    if try !reader.finish() { readsBack = false }
    return action
  }

  mutating func decodeSynthesized<Action: ComposableAction>(_ action: Action.Type) throws
    -> Action
  {
    throw Deferred()
  }

  /// The field for `key` of the case at `level` as a `T`: the commonest scalars from their
  /// token, anything else through ``JSONBytesDecoder``.
  private mutating func field<T: Decodable>(_ type: T.Type, key: String, level: Int)
    throws(Deferred) -> T
  {
    let token = try use(key: key, level: level)
    if T.self == Int.self, let int = Self.int(token) { return unsafeBitCast(int, to: T.self) }
    if T.self == String.self, let string = Self.string(token) {
      return unsafeBitCast(string, to: T.self)
    }
    if T.self == Bool.self, let bool = Self.bool(token) { return unsafeBitCast(bool, to: T.self) }
    let isNull = token.count == 4 && token[0] == UInt8(ascii: "n")
    if T.self == Int?.self, isNull || Self.int(token) != nil {
      return unsafeBitCast(isNull ? nil : Self.int(token), to: T.self)
    }
    if T.self == String?.self, isNull || Self.string(token) != nil {
      return unsafeBitCast(isNull ? nil : Self.string(token), to: T.self)
    }
    if T.self == Bool?.self, isNull || Self.bool(token) != nil {
      return unsafeBitCast(isNull ? nil : Self.bool(token), to: T.self)
    }
    return try decoded(T.self, from: token)
  }

  /// A field of a type other than the commonest scalars, decoded from its token as the general
  /// path decodes it from its value. Not inlined, so that the scalars' reading stays small.
  @inline(never)
  private mutating func decoded<T: Decodable>(_ type: T.Type, from token: UnsafeRawBufferPointer)
    throws(Deferred) -> T
  {
    guard let value = try? JSONBytesDecoder().decode(T.self, from: token) else { throw Deferred() }
    if readsBack, !ActionDecoder.readsBack(WireKind(token: token), as: T.self) { readsBack = false }
    return value
  }

  /// The token of the field for `key` of the case at `level`, noted as used; the names are
  /// ``ActionDecoder/field(for:level:)``'s.
  private mutating func use(key: String, level: Int) throws(Deferred) -> UnsafeRawBufferPointer {
    guard nextCaseStart == nil, level < 64, key != "type" else { throw Deferred() }
    let isValue = key == "_0"
    if isValue {
      // An explicit `_0` beside or instead of `value` is read by the general path.
      guard !text.namesUnlabelledValue else { throw Deferred() }
    } else if valueAliasLevel == level, key.utf8.first == UInt8(ascii: "_") {
      throw Deferred()
    }
    guard let member = Self.withBytes(isValue ? "value" : key, { text.member(named: $0) }),
      usedMembers & (1 << member.index) == 0
    else { throw Deferred() }
    usedMembers |= 1 << member.index
    usedCount += 1
    if member.index != usedCount { inOrder = false }
    if isValue {
      valueAliasLevel = level
    } else {
      otherFieldLevels |= 1 << level
    }
    return member.token
  }

  private static func withBytes<R>(_ string: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    var string = string
    return string.withUTF8 { body(UnsafeRawBufferPointer($0)) }
  }

  /// An integer token's value (the reader took only those that fit `Int`).
  private static func int(_ token: UnsafeRawBufferPointer) -> Int? {
    let negative = token[0] == UInt8(ascii: "-")
    var value = 0
    for byte in token[(negative ? 1 : 0)...] {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      value = value * 10 - Int(byte - UInt8(ascii: "0"))
    }
    return negative ? value : -value
  }

  private static func string(_ token: UnsafeRawBufferPointer) -> String? {
    guard token[0] == UInt8(ascii: "\"") else { return nil }
    return String(
      decoding: UnsafeRawBufferPointer(rebasing: token[1..<(token.count - 1)]), as: UTF8.self)
  }

  private static func bool(_ token: UnsafeRawBufferPointer) -> Bool? {
    switch token[0] {
    case UInt8(ascii: "t"): true
    case UInt8(ascii: "f"): false
    default: nil
    }
  }
}

extension WireKind {
  /// The kind of a token of an ``ActionText``, whose numbers are all integers that fit `Int`.
  init(token: UnsafeRawBufferPointer) {
    switch token[0] {
    case UInt8(ascii: "n"): self = .null
    case UInt8(ascii: "t"), UInt8(ascii: "f"): self = .bool
    case UInt8(ascii: "\""): self = .string
    case UInt8(ascii: "{"), UInt8(ascii: "["): self = .other
    default: self = .integer
    }
  }
}

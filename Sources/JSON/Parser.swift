/// The recursive-descent state behind ``JSONParser``: a cursor over raw bytes.
///
/// Elements of the arrays and objects being parsed collect on two shared stacks and move into
/// an exactly sized array when the container closes, so each container costs one allocation
/// instead of one per capacity doubling.
struct Parser: ~Copyable {
  let bytes: UnsafePointer<UInt8>
  let count: Int
  let maxDepth: Int
  var position = 0
  var depth = 0
  var elementStack = ParseStack<JSONValue>()
  var entryStack = ParseStack<JSONObject.Member>()
  /// Reused buffer for strings with escapes.
  var scratch: [UInt8] = []

  init(bytes: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
    self.bytes = bytes
    self.count = count
    self.maxDepth = maxDepth
  }

  mutating func parseDocument() throws(JSONParseError) -> JSONValue {
    skipWhitespace()
    let value = try parseValue()
    try expectEnd()
    return value
  }

  /// Only whitespace may follow the document's value.
  @inline(__always)
  mutating func expectEnd() throws(JSONParseError) {
    skipWhitespace()
    guard position == count else {
      throw JSONParseError(
        .invalidJSON, "unexpected \(describeByte(at: position)) after the value", at: position)
    }
  }

  /// The byte under the cursor, or nil at the end.
  var current: UInt8? {
    position < count ? bytes[position] : nil
  }

  mutating func skipWhitespace() {
    while position < count {
      switch bytes[position] {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
        position += 1
      default:
        return
      }
    }
  }

  mutating func parseValue() throws(JSONParseError) -> JSONValue {
    switch try valueKind() {
    case .object: return try parseObject()
    case .array: return try parseArray()
    case .string: return .string(try parseString())
    case .number: return try parseNumber()
    case .true: return .bool(true)
    case .false: return .bool(false)
    case .null: return .null
    }
  }

  /// The kind of the value under the cursor, from its first byte; a literal (`true`, `false`,
  /// `null`) is checked and consumed, anything else is left to parse.
  @inline(__always)
  mutating func valueKind() throws(JSONParseError) -> JSONMap.Kind {
    guard let byte = current else {
      throw JSONParseError(.invalidJSON, "unexpected end of input", at: position)
    }
    switch byte {
    case UInt8(ascii: "{"): return .object
    case UInt8(ascii: "["): return .array
    case UInt8(ascii: "\""): return .string
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .true
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .false
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    default:
      throw JSONParseError(.invalidJSON, "unexpected \(describeByte(at: position))", at: position)
    }
  }

  mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
    let length = literal.utf8CodeUnitCount
    guard count - position >= length,
      UnsafeRawBufferPointer(start: bytes + position, count: length).elementsEqual(
        UnsafeRawBufferPointer(start: literal.utf8Start, count: length))
    else {
      throw JSONParseError(.invalidJSON, "expected '\(literal)'", at: position)
    }
    position += length
  }

  mutating func enterContainer() throws(JSONParseError) {
    depth += 1
    guard depth <= maxDepth else {
      throw JSONParseError(.tooDeep, "nesting deeper than \(maxDepth) levels", at: position)
    }
    position += 1
    skipWhitespace()
  }

  private mutating func parseArray() throws(JSONParseError) -> JSONValue {
    try enterContainer()
    defer { depth -= 1 }
    if current == UInt8(ascii: "]") {
      position += 1
      return .array([])
    }
    let base = elementStack.count
    while true {
      elementStack.push(try parseValue())
      if try !continuesAfterElement(closedBy: UInt8(ascii: "]")) {
        return .array(elementStack.popArray(from: base))
      }
    }
  }

  /// After an element of an array (closed by `]`) or a member of an object (`}`): whether a
  /// `,` follows rather than the closing byte, either consumed with the whitespace around it.
  @inline(__always)
  mutating func continuesAfterElement(closedBy closing: UInt8) throws(JSONParseError) -> Bool {
    skipWhitespace()
    switch current {
    case UInt8(ascii: ","):
      position += 1
      skipWhitespace()
      return true
    case closing:
      position += 1
      return false
    default:
      throw unexpected(
        closing == UInt8(ascii: "]")
          ? "expected ',' or ']' after array element" : "expected ',' or '}' after object member")
    }
  }

  private mutating func parseObject() throws(JSONParseError) -> JSONValue {
    try enterContainer()
    defer { depth -= 1 }
    if current == UInt8(ascii: "}") {
      position += 1
      return .object(JSONObject())
    }
    let base = entryStack.count
    // Filled only for large objects, where scanning for duplicates would be quadratic.
    var keyIndex: [UTF8Key: Int]?
    while true {
      guard current == UInt8(ascii: "\"") else {
        throw unexpected("expected a string key")
      }
      let keyOffset = position
      let key = try parseString()
      let entryCount = entryStack.count - base
      if entryCount < JSONObject.linearSearchLimit {
        for index in base..<entryStack.count where entryStack[index].key.hasSameUTF8(as: key) {
          throw duplicateKey(key, at: keyOffset)
        }
      } else {
        if keyIndex == nil {
          var index = [UTF8Key: Int](minimumCapacity: entryCount * 2)
          for offset in 0..<entryCount {
            index[UTF8Key(string: entryStack[base + offset].key)] = offset
          }
          keyIndex = index
        }
        guard keyIndex!.updateValue(entryCount, forKey: UTF8Key(string: key)) == nil else {
          throw duplicateKey(key, at: keyOffset)
        }
      }
      try expectColon()
      entryStack.push(JSONObject.Member(key: key, value: try parseValue()))
      if try !continuesAfterElement(closedBy: UInt8(ascii: "}")) {
        return .object(
          JSONObject(uniqueEntries: entryStack.popArray(from: base), keyIndex: keyIndex))
      }
    }
  }

  /// The error for a key that the object being read has already.
  func duplicateKey(_ key: String, at offset: Int) -> JSONParseError {
    JSONParseError(
      .invalidJSON, "duplicate key \(JSONValue.string(key).briefDescription)", at: offset)
  }

  /// Between an object's key and its value.
  @inline(__always)
  mutating func expectColon() throws(JSONParseError) {
    skipWhitespace()
    guard current == UInt8(ascii: ":") else {
      throw unexpected("expected ':' after object key")
    }
    position += 1
    skipWhitespace()
  }

  /// An error at the cursor that says what was found instead, or that the input ended.
  func unexpected(_ expectation: String) -> JSONParseError {
    let found = position < count ? "found \(describeByte(at: position))" : "found end of input"
    return JSONParseError(.invalidJSON, "\(expectation), \(found)", at: position)
  }

  /// "character 'x'" for printable ASCII, "byte 0xC3" for anything else.
  func describeByte(at offset: Int) -> String {
    guard offset < count else { return "end of input" }
    let byte = bytes[offset]
    if byte >= 0x20 && byte < 0x7F {
      return "character '\(Character(Unicode.Scalar(byte)))'"
    }
    let hex = String(byte, radix: 16, uppercase: true)
    return "byte 0x\(byte < 0x10 ? "0" : "")\(hex)"
  }
}

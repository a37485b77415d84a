/// Where each value of a JSON document lies in its bytes, found by one validating pass.
///
/// ``JSONBytesDecoder`` reads a document through this map instead of a ``JSONValue`` tree: the
/// pass allocates nothing per value (the tree allocated every array, object and long string),
/// and a scalar is converted from its bytes only when a `Decodable` asks for it. The pass
/// rejects exactly what ``JSONParser`` rejects, with the same errors: it is the parser's own
/// grammar (`Parser.valueKind`, `scanString`, `parseNumber`), recording offsets where the
/// parser builds values.
///
/// Each value is a run of words in `words`, in document order: `kind | escaped << 3 | offset
/// << 4` (offset of its first byte; `escaped` for a string with a backslash, or a number that is
/// not an `Int`), then, for a number, its value (the `Int`, or the `Double`'s bits); for
/// another scalar, the offset just past it; for an array or object, its count of elements or
/// members and the index in `words` just past its last one. A member is its key (a string) followed by
/// its value.
struct JSONMap {
  enum Kind: Int {
    case null, `true`, `false`, number, string, array, object
  }

  private(set) var words: [Int] = []

  init(bytes: UnsafePointer<UInt8>, count: Int, maxDepth: Int) throws(JSONParseError) {
    var parser = Parser(bytes: bytes, count: count, maxDepth: maxDepth)
    // A value takes two or three words, and needs at least one or two bytes with its separator.
    words.reserveCapacity(count)
    var keys: [Int] = []
    parser.skipWhitespace()
    try parser.scanValue(into: &words, keys: &keys)
    try parser.expectEnd()
  }

  func kind(_ index: Int) -> Kind {
    Kind(rawValue: words[index] & 7)!
  }

  func offset(_ index: Int) -> Int {
    words[index] >> 4
  }

  /// Whether the string at `index` has escapes, so that its bytes are not its contents.
  func isEscaped(_ index: Int) -> Bool {
    words[index] & 8 != 0
  }

  /// The number at `index`, as the parser reads it.
  func number(_ index: Int) -> JSONValue {
    isEscaped(index)
      ? .number(Double(bitPattern: UInt64(truncatingIfNeeded: words[index + 1])))
      : .int(words[index + 1])
  }

  /// The element or member count of the array or object at `index`.
  func count(_ index: Int) -> Int {
    words[index + 1]
  }

  /// The index of the value after the one at `index` (and all it holds).
  func next(_ index: Int) -> Int {
    switch kind(index) {
    case .array, .object: words[index + 2]
    default: index + 2
    }
  }

  /// The range of the contents of the unescaped string at `index`, quotes left out.
  func contents(_ index: Int) -> Range<Int> {
    offset(index) + 1..<words[index + 1] - 1
  }
}

extension Parser {
  /// Records the value under the cursor and all it holds. `keys` is scratch space for the keys
  /// of the objects open, to find a repeated one.
  mutating func scanValue(into words: inout [Int], keys: inout [Int]) throws(JSONParseError) {
    let start = position
    let kind = try valueKind()
    switch kind {
    case .array, .object:
      let header = words.count
      words.append(kind.rawValue | start << 4)
      words.append(0)
      words.append(0)
      words[header + 1] =
        kind == .array
        ? try scanArray(into: &words, keys: &keys) : try scanObject(into: &words, keys: &keys)
      words[header + 2] = words.count
      return
    case .string:
      let escaped = try scanString() == nil
      words.append(kind.rawValue | (escaped ? 8 : 0) | start << 4)
    case .number:
      // Kept, so that reading it is not parsing it again: an `.int`'s bits, or a `.number`'s
      // (flagged like an escaped string).
      let number = try parseNumber()
      if case .int(let integer) = number {
        words.append(kind.rawValue | start << 4)
        words.append(integer)
      } else {
        words.append(kind.rawValue | 8 | start << 4)
        words.append(Int(truncatingIfNeeded: number.doubleValue!.bitPattern))
      }
      return
    case .true, .false, .null:
      words.append(kind.rawValue | start << 4)
    }
    words.append(position)
  }

  /// The elements of the array under the cursor; returns how many.
  private mutating func scanArray(into words: inout [Int], keys: inout [Int]) throws(JSONParseError)
    -> Int
  {
    try enterContainer()
    defer { depth -= 1 }
    if current == UInt8(ascii: "]") {
      position += 1
      return 0
    }
    var elements = 0
    repeat {
      try scanValue(into: &words, keys: &keys)
      elements += 1
    } while try continuesAfterElement(closedBy: UInt8(ascii: "]"))
    return elements
  }

  /// The members of the object under the cursor; returns how many.
  private mutating func scanObject(into words: inout [Int], keys: inout [Int])
    throws(JSONParseError) -> Int
  {
    try enterContainer()
    defer { depth -= 1 }
    if current == UInt8(ascii: "}") {
      position += 1
      return 0
    }
    let base = keys.count
    defer { keys.removeSubrange(base...) }
    // As in `parseObject`: past a few keys, a hash index finds a repeated one.
    var keyIndex: Set<UTF8Key>?
    repeat {
      guard current == UInt8(ascii: "\"") else {
        throw unexpected("expected a string key")
      }
      let key = words.count
      try scanValue(into: &words, keys: &keys)
      let earlier = keys.count - base
      if earlier < JSONObject.linearSearchLimit {
        for other in keys[base...] where sameKey(other, key, in: words) {
          throw duplicateKey(self.key(key, in: words), at: words[key] >> 4)
        }
      } else {
        if keyIndex == nil {
          keyIndex = Set(keys[base...].map { UTF8Key(string: self.key($0, in: words)) })
        }
        let string = self.key(key, in: words)
        guard keyIndex!.insert(UTF8Key(string: string)).inserted else {
          throw duplicateKey(string, at: words[key] >> 4)
        }
      }
      keys.append(key)
      try expectColon()
      try scanValue(into: &words, keys: &keys)
    } while try continuesAfterElement(closedBy: UInt8(ascii: "}"))
    return keys.count - base
  }
}

extension Parser {
  /// The string recorded at `index` of `words`, its escapes decoded.
  func key(_ index: Int, in words: [Int]) -> String {
    var reader = Parser(bytes: bytes, count: count, maxDepth: 0)
    reader.position = words[index] >> 4
    // Validated when it was recorded.
    return try! reader.parseString()
  }

  /// Whether the strings recorded at `lhs` and `rhs` of `words` have the same contents: their
  /// bytes when neither has escapes, else their decoded contents.
  func sameKey(_ lhs: Int, _ rhs: Int, in words: [Int]) -> Bool {
    guard words[lhs] & 8 == 0, words[rhs] & 8 == 0 else {
      return key(lhs, in: words).hasSameUTF8(as: key(rhs, in: words))
    }
    // Contents: after the opening quote, before the closing one.
    let left = UnsafeBufferPointer(
      start: bytes + (words[lhs] >> 4) + 1, count: words[lhs + 1] - (words[lhs] >> 4) - 2)
    let right = UnsafeBufferPointer(
      start: bytes + (words[rhs] >> 4) + 1, count: words[rhs + 1] - (words[rhs] >> 4) - 2)
    return left.count == right.count && String.bytesEqual(left, right)
  }
}

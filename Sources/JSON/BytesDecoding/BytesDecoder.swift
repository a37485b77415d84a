/// The `Decoder` behind ``JSONBytesDecoder``: ``ValueDecoder``'s counterpart over a `JSONMap`.
///
/// As there, one instance serves a whole document: decoding a nested value pushes its key and
/// moves `current`, then restores both. A scalar is converted from its bytes when asked for, by
/// the parser that validated it, into the `JSONValue` the tree would have held there, and read
/// from that by the same `ScalarDecoding` and `KnownDecodable` as ``JSONValueDecoder``: the two
/// decoders cannot differ in what a value reads as or in how a wrong one is reported.
final class BytesDecoder: Decoder {
  let map: JSONMap
  // Like ValueDecoder's, these accesses never overlap: no run-time exclusivity checks.
  @exclusivity(unchecked) private(set) var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  /// The index in `map` of the value read by the `init(from:)` currently running.
  @exclusivity(unchecked) private(set) var current = 0
  /// Whether `null` would also have been accepted there (an optional field), for messages.
  @exclusivity(unchecked) var allowsNull = false
  /// Converts scalars (and, for a `JSONValue` member, whole values) from the bytes.
  @exclusivity(unchecked) private var reader: Parser

  /// `bytes` must stay valid while the decoder is used.
  init(bytes: UnsafePointer<UInt8>, count: Int, map: JSONMap) {
    self.map = map
    // The map has checked the depth already.
    reader = Parser(bytes: bytes, count: count, maxDepth: .max)
  }

  /// The value at `index` of the map as a `JSONValue`.
  func value(at index: Int) -> JSONValue {
    switch map.kind(index) {
    case .null: return .null
    case .true: return .bool(true)
    case .false: return .bool(false)
    case .number: return map.number(index)
    case .string, .array, .object:
      reader.position = map.offset(index)
      // Validated when the map was made.
      return try! reader.parseValue()
    }
  }

  /// The value at `index`, except that an array or object is an empty one: all an error message
  /// says of a container is its kind, and a scalar read needs no more.
  func scalar(at index: Int) -> JSONValue {
    switch map.kind(index) {
    case .array: .array([])
    case .object: .object(JSONObject())
    default: value(at: index)
    }
  }

  /// The string at `index` (a key), its escapes decoded.
  func string(at index: Int) -> String {
    reader.position = map.offset(index)
    return try! reader.parseString()
  }

  /// Whether the key at `index` is `key`.
  func keyMatches(_ index: Int, _ key: String) -> Bool {
    guard !map.isEscaped(index) else { return string(at: index).hasSameUTF8(as: key) }
    let range = map.contents(index)
    var key = key
    return key.withUTF8 { utf8 in
      utf8.count == range.count
        && String.bytesEqual(
          utf8, UnsafeBufferPointer(start: reader.bytes + range.lowerBound, count: range.count))
    }
  }

  /// Decodes the value at `current`.
  func decodeCurrent<T: Decodable>(_ type: T.Type) throws -> T {
    if KnownDecodable.reads(T.self),
      let known = try KnownDecodable.decode(
        T.self, from: value(at: current), allowsNull: allowsNull, path: codingPath)
    {
      return known
    }
    return try T(from: self)
  }

  /// Decodes the value at `index`, found at `keys` below the current path.
  func decodeNested<T: Decodable>(
    _ type: T.Type, at index: Int, keys: [any CodingKey], _ key: any CodingKey,
    allowsNull nestedAllowsNull: Bool
  ) throws -> T {
    let enclosing = current
    let enclosingAllowsNull = allowsNull
    if !keys.isEmpty {
      codingPath.append(contentsOf: keys)
    }
    codingPath.append(key)
    current = index
    allowsNull = nestedAllowsNull
    defer {
      codingPath.removeLast(keys.count + 1)
      current = enclosing
      allowsNull = enclosingAllowsNull
    }
    return try decodeCurrent(T.self)
  }

  /// The path of a container made at `depth` with `keys` below it.
  func codingPath(depth: Int, keys: [any CodingKey]) -> [any CodingKey] {
    Array(codingPath.prefix(depth)) + keys
  }

  /// The object at `index`, or the error of a keyed container asked of something else.
  func object(at index: Int, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]) throws
    -> Int
  {
    guard map.kind(index) == .object else {
      throw DecodingFailure.mismatch(
        [String: JSONValue].self, expected: "an object", found: scalar(at: index),
        allowsNull: allowsNull, path: path())
    }
    return index
  }

  /// The array at `index`, or the error of an unkeyed container asked of something else.
  func array(at index: Int, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]) throws
    -> Int
  {
    guard map.kind(index) == .array else {
      throw DecodingFailure.mismatch(
        [JSONValue].self, expected: "an array", found: scalar(at: index), allowsNull: allowsNull,
        path: path())
    }
    return index
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    let object = try object(at: current, allowsNull: allowsNull, path: codingPath)
    return KeyedDecodingContainer(
      BytesKeyedContainer(decoder: self, object: object, depth: codingPath.count, keys: []))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let array = try array(at: current, allowsNull: allowsNull, path: codingPath)
    return BytesUnkeyedContainer(decoder: self, array: array, depth: codingPath.count, keys: [])
  }

  func singleValueContainer() -> any SingleValueDecodingContainer {
    SingleValueDecodingContainerImpl(
      decoder: self, value: scalar(at: current), allowsNull: allowsNull)
  }
}

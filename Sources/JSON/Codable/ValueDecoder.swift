/// The `Decoder` behind ``JSONValueDecoder``.
///
/// Like `ValueEncoder`, one instance serves a whole tree: decoding a nested value pushes its key
/// and swaps `value`, then restores both. Containers keep their own copy of the object or array
/// they read (a reference count, not a copy of the storage), and remember how deep the path was
/// when they were made.
final class ValueDecoder: Decoder {
  // Like the encoder's, these accesses never overlap: no run-time exclusivity checks.
  @exclusivity(unchecked) private(set) var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  /// The value read by the `init(from:)` currently running.
  @exclusivity(unchecked) private(set) var value: JSONValue
  /// Whether `null` would also have been accepted there (an optional field), for messages.
  @exclusivity(unchecked) private(set) var allowsNull: Bool

  init(value: JSONValue, allowsNull: Bool, codingPath: [any CodingKey] = []) {
    self.value = value
    self.allowsNull = allowsNull
    self.codingPath = codingPath
  }

  /// Decodes `value` at the current path.
  func decodeCurrent<T: Decodable>(_ type: T.Type) throws -> T {
    if let known = try KnownDecodable.decode(
      T.self, from: value, allowsNull: allowsNull, path: codingPath)
    {
      return known
    }
    return try T(from: self)
  }

  /// Decodes the value found at `keys` below the current path.
  func decodeNested<T: Decodable>(
    _ type: T.Type, from nested: JSONValue, at keys: [any CodingKey], _ key: any CodingKey,
    allowsNull nestedAllowsNull: Bool
  ) throws -> T {
    let enclosingValue = value
    let enclosingAllowsNull = allowsNull
    if !keys.isEmpty {
      codingPath.append(contentsOf: keys)
    }
    codingPath.append(key)
    value = nested
    allowsNull = nestedAllowsNull
    defer {
      codingPath.removeLast(keys.count + 1)
      value = enclosingValue
      allowsNull = enclosingAllowsNull
    }
    return try decodeCurrent(T.self)
  }

  /// The path of a container made at `depth` with `keys` below it.
  func codingPath(depth: Int, keys: [any CodingKey]) -> [any CodingKey] {
    Array(codingPath.prefix(depth)) + keys
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let object) = value else {
      throw DecodingFailure.mismatch(
        [String: JSONValue].self, expected: "an object", found: value, allowsNull: allowsNull,
        path: codingPath)
    }
    return KeyedDecodingContainer(
      KeyedValueDecodingContainer(decoder: self, object: object, depth: codingPath.count, keys: []))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let array) = value else {
      throw DecodingFailure.mismatch(
        [JSONValue].self, expected: "an array", found: value, allowsNull: allowsNull,
        path: codingPath)
    }
    return UnkeyedValueDecodingContainer(
      decoder: self, array: array, depth: codingPath.count, keys: [])
  }

  func singleValueContainer() -> any SingleValueDecodingContainer {
    SingleValueDecodingContainerImpl(decoder: self, value: value, allowsNull: allowsNull)
  }
}

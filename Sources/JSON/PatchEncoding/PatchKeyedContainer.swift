/// The members of a struct being patched: each one is compared with its ``PatchNode``.
///
/// Scalars are compared as JSON; any other member goes through ``PatchWalk/patch(_:at:)``,
/// which skips it when its bits did not change. Nested containers and super encoders are
/// encoded plainly and read once the struct's `encode(to:)` returned.
///
/// One container serves every walk of its node (the node keeps it), so it holds no state of
/// its own, and references the walk and the node without retaining them, which would make a cycle; like any container, it must
/// not be used after the `encode(to:)` it was made for returned.
struct PatchKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  unowned(unsafe) let walk: PatchWalk
  unowned(unsafe) let node: PatchNode

  init(walk: PatchWalk, node: PatchNode) {
    self.walk = walk
    self.node = node
  }

  var codingPath: [any CodingKey] { node.codingPath }

  private func setScalar(_ json: JSONValue, _ key: Key) {
    let name = key.stringValue
    withWalkAndNode { walk, node in walk.setScalar(json, forKey: name, of: node) }
  }

  @inline(never)
  private func setValue<T: Encodable>(_ value: T, _ key: Key) throws {
    let name = key.stringValue
    if try withWalkAndNode({ walk, node in try walk.patchMember(value, forKey: name, of: node) }) {
      return
    }
    let json = try ValueEncoder(codingPath: codingPath + [key]).encodeCurrent(value)
    try walk.rememberFirstSight(value, at: walk.addMember(to: node, key: name, json: json))
  }

  /// Runs `body` with the walk and the node, without retaining them for it: they outlive the
  /// `encode(to:)` this container serves, and a retain and a release each per member add up.
  @inline(__always)
  private func withWalkAndNode<Result>(
    _ body: (PatchWalk, PatchNode) throws -> Result
  ) rethrows -> Result {
    try Unmanaged.passUnretained(walk)._withUnsafeGuaranteedRef { walk in
      try Unmanaged.passUnretained(node)._withUnsafeGuaranteedRef { node in try body(walk, node) }
    }
  }

  private func encoded<T: FixedWidthInteger>(_ value: T, _ key: Key) throws -> JSONValue {
    try JSONValue(encoding: value, path: codingPath + [key])
  }

  mutating func encodeNil(forKey key: Key) { setScalar(.null, key) }
  mutating func encode(_ value: Bool, forKey key: Key) { setScalar(.bool(value), key) }
  mutating func encode(_ value: String, forKey key: Key) { setScalar(.string(value), key) }
  mutating func encode(_ value: Double, forKey key: Key) {
    setScalar(JSONValue(encoding: value), key)
  }
  mutating func encode(_ value: Float, forKey key: Key) {
    setScalar(JSONValue(encoding: value), key)
  }
  mutating func encode(_ value: Int, forKey key: Key) { setScalar(.int(value), key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    setScalar(try encoded(value, key), key)
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    setScalar(try encoded(value, key), key)
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    setScalar(try encoded(value, key), key)
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    setScalar(try encoded(value, key), key)
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    setScalar(try encoded(value, key), key)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    setScalar(try encoded(value, key), key)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    setScalar(try encoded(value, key), key)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    setScalar(try encoded(value, key), key)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    setScalar(try encoded(value, key), key)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try setValue(value, key)
  }

  // Every `encodeIfPresent` writes `null` for nil, as `JSONValueEncoder` does.
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) {
    setScalar(value.map { .bool($0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) {
    setScalar(value.map { .string($0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) {
    setScalar(value.map { JSONValue(encoding: $0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) {
    setScalar(value.map { JSONValue(encoding: $0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) {
    setScalar(value.map { .int($0) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
    setScalar(try value.map { try encoded($0, key) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
    setScalar(try value.map { try encoded($0, key) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
    setScalar(try value.map { try encoded($0, key) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
    setScalar(try value.map { try encoded($0, key) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
    setScalar(try value.map { try encoded($0, key) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
    setScalar(try value.map { try encoded($0, key) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
    setScalar(try value.map { try encoded($0, key) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
    setScalar(try value.map { try encoded($0, key) } ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
    setScalar(try value.map { try encoded($0, key) } ?? .null, key)
  }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    // `switch` with `setValue` not inlined reads the payload in place; otherwise the optional
    // is copied first, which looks up `Optional<T>`'s metadata on every call.
    switch value {
    case .some(let value): try setValue(value, key)
    case .none: setScalar(.null, key)
    }
  }

  // Nested containers and super encoders write plainly; their JSON is read at the end.

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    later(key).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    later(key).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    later(JSONKey.super)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    later(key)
  }

  private func later(_ key: any CodingKey) -> ValueEncoder {
    let encoder = ValueEncoder(codingPath: codingPath + [key])
    node.later.append((key.stringValue, .encoder(encoder)))
    return encoder
  }
}

/// The elements of an array being patched, each compared with the ``PatchNode`` of its
/// position, as ``PatchKeyedContainer`` compares a struct's members: an element whose bits did
/// not change is skipped, a changed scalar is one `replace`, a changed struct is walked member by
/// member. The walk hands it out only for an array as long as the one before (see
/// ``PatchNode/rememberElements(count:limit:)``); an element past the last is added.
///
/// Like the keyed container, it references the walk and the node without retaining them and
/// must not be used after the `encode(to:)` it was made for returned.
struct PatchUnkeyedContainer: UnkeyedEncodingContainer {
  unowned(unsafe) let walk: PatchWalk
  unowned(unsafe) let node: PatchNode
  private(set) var count = 0

  init(walk: PatchWalk, node: PatchNode) {
    self.walk = walk
    self.node = node
  }

  var codingPath: [any CodingKey] { node.codingPath }

  private mutating func setScalar(_ json: JSONValue) {
    walk.setScalar(json, at: count, of: node)
    count += 1
  }

  private func encoded<T: FixedWidthInteger>(_ value: T) throws -> JSONValue {
    try JSONValue(encoding: value, path: codingPath + [JSONKey(intValue: count)])
  }

  mutating func encodeNil() { setScalar(.null) }
  mutating func encode(_ value: Bool) { setScalar(.bool(value)) }
  mutating func encode(_ value: String) { setScalar(.string(value)) }
  mutating func encode(_ value: Double) { setScalar(JSONValue(encoding: value)) }
  mutating func encode(_ value: Float) { setScalar(JSONValue(encoding: value)) }
  mutating func encode(_ value: Int) { setScalar(.int(value)) }
  mutating func encode(_ value: Int8) throws { setScalar(try encoded(value)) }
  mutating func encode(_ value: Int16) throws { setScalar(try encoded(value)) }
  mutating func encode(_ value: Int32) throws { setScalar(try encoded(value)) }
  mutating func encode(_ value: Int64) throws { setScalar(try encoded(value)) }
  mutating func encode(_ value: UInt) throws { setScalar(try encoded(value)) }
  mutating func encode(_ value: UInt8) throws { setScalar(try encoded(value)) }
  mutating func encode(_ value: UInt16) throws { setScalar(try encoded(value)) }
  mutating func encode(_ value: UInt32) throws { setScalar(try encoded(value)) }
  mutating func encode(_ value: UInt64) throws { setScalar(try encoded(value)) }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try walk.patchElement(value, at: count, of: node)
    count += 1
  }

  // Nested containers and super encoders write plainly; their JSON is read at the end, as the
  // keyed container's are.

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    later().container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    later().unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    later()
  }

  private mutating func later() -> ValueEncoder {
    let key = JSONKey(intValue: count)
    let encoder = ValueEncoder(codingPath: codingPath + [key])
    node.later.append((key.stringValue, .encoder(encoder)))
    count += 1
    return encoder
  }
}

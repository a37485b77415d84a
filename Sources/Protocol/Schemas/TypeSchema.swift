import JSON

/// A type that states its own JSON Schema, for a hand-written `Codable` whose wire form a walk
/// of its decoding cannot see (a choice between members, a string in a format).
public protocol JSONSchemaDescribed {
  static var jsonSchema: JSONValue { get }
}

/// JSON Schemas (2020-12) read from Swift types, so that a store's description is derived from
/// its types instead of restating them.
///
/// A `Decodable` type is walked through its `init(from:)` with a decoder that answers every
/// request with a placeholder and notes what was asked: a member decoded is a required
/// property, one decoded if present is an optional, nullable one; an array's element is decoded
/// once; a string-backed `CaseIterable` enum is an `enum` of its raw values (one that is not
/// `CaseIterable` cannot be walked: no placeholder is one of its values, and the walk gives
/// the empty schema). A value, such as a store's state, is walked by encoding it, and its
/// members are described by their types where those are `Decodable`.
///
/// ```swift
/// struct Todo: Codable { var id: Int; var title: String; var note: String? }
/// TypeSchema.of(Todo.self)
/// // {"type":"object","properties":{"id":{"type":"integer"},"title":{"type":"string"},
/// //  "note":{"oneOf":[{"type":"null"},{"type":"string"}]}},"required":["id","title"],
/// //  "additionalProperties":false}
/// ```
public enum TypeSchema {
  public static func of<T: Decodable>(_ type: T.Type) -> JSONValue {
    (try? SchemaProbe.describe(T.self, depth: 0).schema) ?? [:]
  }

  /// The schema of what `value` encodes to: its members are found by encoding it (a state may
  /// encode members it does not decode, such as derived ones), and each member is described by
  /// its type where that is `Decodable`, so that an empty array or a nil still says what it
  /// would hold.
  public static func of<T: Encodable>(value: T) -> JSONValue {
    if let described = T.self as? any JSONSchemaDescribed.Type { return described.jsonSchema }
    let encoder = SchemaEncoder(depth: 0)
    guard (try? value.encode(to: encoder)) != nil else { return [:] }
    return encoder.schema
  }

  /// A value of `type`, made of placeholders, and the type's schema: what a walk that must go
  /// on past a value hands back.
  static func sample<T: Decodable>(_ type: T.Type) throws -> (value: T, schema: JSONValue) {
    try SchemaProbe.describe(T.self, depth: 0)
  }

  /// The schema of a value as the runtime encodes it, from the schema of its decoding: a member
  /// decoded if present (optional and nullable) is encoded as `null` when nil, since every
  /// encoder of the runtime writes `encodeIfPresent`'s nil as `null`, so it is always there and
  /// required. Other optional members (a hand-written schema's) are left as they are.
  static func encoded(_ schema: JSONValue) -> JSONValue {
    switch schema {
    case .array(let members): return .array(members.map(encoded))
    case .object(var object):
      for (key, value) in object where key != "properties" && key != "required" {
        object[key] = encoded(value)
      }
      guard let properties = object["properties"]?.objectValue else { return .object(object) }
      var required = object["required"]?.stringArray ?? []
      var members = JSONObject()
      for (name, member) in properties {
        if !required.contains(name), member["oneOf"]?.arrayValue?.contains(["type": "null"]) == true
        {
          required.append(name)
        }
        members[name] = encoded(member)
      }
      object["properties"] = .object(members)
      object["required"] = .array(required.map(JSONValue.string))
      return .object(object)
    default: return schema
    }
  }

  static func nullable(_ schema: JSONValue) -> JSONValue {
    ["oneOf": [["type": "null"], schema]]
  }

  static func object(_ properties: JSONObject, required: [String]) -> JSONValue {
    [
      "type": "object", "properties": .object(properties),
      "required": .array(required.map(JSONValue.string)), "additionalProperties": false,
    ]
  }
}

/// The members of an object found so far.
private struct ObjectSchema {
  private var properties = JSONObject()
  private var required: [String] = []

  /// Adds a member; returns the object's schema with it.
  mutating func adding(_ name: String, _ schema: JSONValue, isRequired: Bool) -> JSONValue {
    properties[name] = schema
    if isRequired { required.append(name) }
    return TypeSchema.object(properties, required: required)
  }
}

/// Deeper than this, a walk stops and says nothing: a recursive type would never end.
private let maxDepth = 32

private struct Unsupported: Error {}

/// Describes one value: the decoder its `init(from:)` runs against.
private final class SchemaProbe: Decoder {
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  let depth: Int
  var schema: JSONValue = [:]
  private var object = ObjectSchema()

  init(depth: Int) {
    self.depth = depth
  }

  /// A value of `type` to hand back, and its schema.
  static func describe<T: Decodable>(_ type: T.Type, depth: Int) throws -> (
    value: T, schema: JSONValue
  ) {
    guard depth < maxDepth else { throw Unsupported() }
    if let cases = caseList(T.self), let first = cases.first as? T {
      let values = cases.compactMap(rawJSON)
      let schema: JSONValue =
        (T.self as? any JSONSchemaDescribed.Type)?.jsonSchema ?? ["enum": .array(values)]
      return (first, schema)
    }
    let probe = SchemaProbe(depth: depth + 1)
    let value = try T(from: probe)
    return (value, (T.self as? any JSONSchemaDescribed.Type)?.jsonSchema ?? probe.schema)
  }

  func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
    schema = TypeSchema.object([:], required: [])
    return KeyedDecodingContainer(KeyedProbe<Key>(probe: self))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    schema = ["type": "array"]
    return UnkeyedProbe(probe: self)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleValueProbe(probe: self)
  }

  fileprivate func member(_ name: String, _ schema: JSONValue, isRequired: Bool) {
    self.schema = object.adding(name, schema, isRequired: isRequired)
  }

  fileprivate func value<T: Decodable>(_ type: T.Type) throws -> (value: T, schema: JSONValue) {
    try Self.describe(T.self, depth: depth)
  }
}

private struct KeyedProbe<Key: CodingKey>: ProbingContainer {
  let probe: SchemaProbe
  var codingPath: [any CodingKey] { [] }
  // A dictionary's keys are not known: it is described as an object with no properties.
  var allKeys: [Key] { [] }

  func contains(_ key: Key) -> Bool { true }
  func decodeNil(forKey key: Key) throws -> Bool { false }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let (value, schema) = try probe.value(T.self)
    probe.member(key.stringValue, schema, isRequired: true)
    return value
  }

  func decodeOptional<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    let (_, schema) = try probe.value(T.self)
    probe.member(key.stringValue, TypeSchema.nullable(schema), isRequired: false)
    return nil
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    throw Unsupported()
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw Unsupported()
  }

  func superDecoder() throws -> any Decoder { throw Unsupported() }
  func superDecoder(forKey key: Key) throws -> any Decoder { throw Unsupported() }
}

/// An array: its element is decoded once.
private final class UnkeyedProbe: UnkeyedDecodingContainer {
  let probe: SchemaProbe
  var codingPath: [any CodingKey] { [] }
  var count: Int? { nil }
  private(set) var currentIndex = 0
  var isAtEnd: Bool { currentIndex > 0 }

  init(probe: SchemaProbe) {
    self.probe = probe
  }

  func decodeNil() throws -> Bool { false }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let (value, schema) = try probe.value(T.self)
    probe.schema = ["type": "array", "items": schema]
    currentIndex += 1
    return value
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    throw Unsupported()
  }

  func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Unsupported() }
  func superDecoder() throws -> any Decoder { throw Unsupported() }
}

private struct SingleValueProbe: SingleValueDecodingContainer {
  let probe: SchemaProbe
  var codingPath: [any CodingKey] { [] }

  /// `Optional.init(from:)` asks first: the value may be null, and the walk goes on to its
  /// wrapped type.
  func decodeNil() -> Bool {
    probe.schema = ["nullable": true]
    return false
  }

  private func primitive<T>(_ value: T, _ type: JSONValue) -> T {
    let schema: JSONValue = ["type": type]
    probe.schema = probe.schema["nullable"] == true ? TypeSchema.nullable(schema) : schema
    return value
  }

  func decode(_ type: Bool.Type) throws -> Bool { primitive(false, "boolean") }
  func decode(_ type: String.Type) throws -> String { primitive("", "string") }
  func decode(_ type: Double.Type) throws -> Double { primitive(0, "number") }
  func decode(_ type: Float.Type) throws -> Float { primitive(0, "number") }
  func decode(_ type: Int.Type) throws -> Int { primitive(0, "integer") }
  func decode(_ type: Int8.Type) throws -> Int8 { primitive(0, "integer") }
  func decode(_ type: Int16.Type) throws -> Int16 { primitive(0, "integer") }
  func decode(_ type: Int32.Type) throws -> Int32 { primitive(0, "integer") }
  func decode(_ type: Int64.Type) throws -> Int64 { primitive(0, "integer") }
  func decode(_ type: UInt.Type) throws -> UInt { primitive(0, "integer") }
  func decode(_ type: UInt8.Type) throws -> UInt8 { primitive(0, "integer") }
  func decode(_ type: UInt16.Type) throws -> UInt16 { primitive(0, "integer") }
  func decode(_ type: UInt32.Type) throws -> UInt32 { primitive(0, "integer") }
  func decode(_ type: UInt64.Type) throws -> UInt64 { primitive(0, "integer") }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let isNullable = probe.schema["nullable"] == true
    let (value, schema) = try probe.value(T.self)
    probe.schema = isNullable ? TypeSchema.nullable(schema) : schema
    return value
  }
}

/// Describes an `Encodable`-only value by encoding it.
private final class SchemaEncoder: Encoder {
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  let depth: Int
  var schema: JSONValue = [:]
  private var object = ObjectSchema()

  init(depth: Int) {
    self.depth = depth
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    schema = TypeSchema.object([:], required: [])
    return KeyedEncodingContainer(KeyedSchemaEncoder<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer { UnkeyedSchemaEncoder(encoder: self) }
  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleSchemaEncoder(encoder: self)
  }

  fileprivate func member(_ name: String, _ schema: JSONValue) {
    self.schema = object.adding(name, schema, isRequired: true)
  }

  fileprivate func describe<T: Encodable>(_ value: T) -> JSONValue {
    guard depth < maxDepth else { return [:] }
    if let described = T.self as? any JSONSchemaDescribed.Type { return described.jsonSchema }
    if let decodable = T.self as? any Decodable.Type {
      return TypeSchema.encoded(TypeSchema.of(decodable))
    }
    let nested = SchemaEncoder(depth: depth + 1)
    try? value.encode(to: nested)
    return nested.schema
  }
}

private struct KeyedSchemaEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: SchemaEncoder
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil(forKey key: Key) { encoder.member(key.stringValue, ["type": "null"]) }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }

  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }

  // The standard library's own `encodeIfPresent` for these types skips a nil: each goes
  // through the generic one, which describes the member's type whatever its value.
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) {
    encoder.member(key.stringValue, encoder.describe(value))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = SchemaEncoder(depth: encoder.depth + 1)
    defer { encoder.member(key.stringValue, nested.schema) }
    return nested.container(keyedBy: NestedKey.self)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    encoder.member(key.stringValue, ["type": "array"])
    return UnkeyedSchemaEncoder(encoder: SchemaEncoder(depth: encoder.depth + 1))
  }

  mutating func superEncoder() -> any Encoder { SchemaEncoder(depth: encoder.depth + 1) }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    SchemaEncoder(depth: encoder.depth + 1)
  }
}

/// An `Encodable`-only array: described by its first element, when it has one.
private struct UnkeyedSchemaEncoder: UnkeyedEncodingContainer {
  let encoder: SchemaEncoder
  var codingPath: [any CodingKey] { [] }
  private(set) var count = 0

  init(encoder: SchemaEncoder) {
    self.encoder = encoder
    encoder.schema = ["type": "array"]
  }

  mutating func encodeNil() {}

  mutating func encode<T: Encodable>(_ value: T) {
    if count == 0 { encoder.schema = ["type": "array", "items": encoder.describe(value)] }
    count += 1
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    SchemaEncoder(depth: encoder.depth + 1).container(keyedBy: NestedKey.self)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    UnkeyedSchemaEncoder(encoder: SchemaEncoder(depth: encoder.depth + 1))
  }

  mutating func superEncoder() -> any Encoder { SchemaEncoder(depth: encoder.depth + 1) }
}

private struct SingleSchemaEncoder: SingleValueEncodingContainer {
  let encoder: SchemaEncoder
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil() { encoder.schema = ["type": "null"] }

  mutating func encode<T: Encodable>(_ value: T) {
    encoder.schema = encoder.describe(value)
  }
}

/// The cases of a `CaseIterable` type, in order; nil for any other type.
private func caseList<T>(_ type: T.Type) -> [Any]? {
  guard let iterable = T.self as? any CaseIterable.Type else { return nil }
  func cases<C: CaseIterable>(_: C.Type) -> [Any] { Array(C.allCases) }
  return cases(iterable)
}

/// A case's raw value as JSON, for an `enum` schema.
private func rawJSON(_ value: Any) -> JSONValue? {
  guard let raw = value as? any RawRepresentable else { return nil }
  func encoded<R: RawRepresentable>(_ value: R) -> JSONValue? {
    (value.rawValue as? any Encodable).flatMap { try? JSONValueEncoder().encode($0) }
  }
  return encoded(raw)
}

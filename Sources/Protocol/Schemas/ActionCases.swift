import ComposableCore
import JSON

/// One case of an action enum as the wire sees it: its dotted type and its payload fields, in
/// declaration order, each with the JSON Schema of its type.
public struct ActionCase: Equatable, Sendable, CustomStringConvertible {
  public let type: String
  public let payload: [ActionDescriptor.Field]

  public init(type: String, payload: [ActionDescriptor.Field]) {
    self.type = type
    self.payload = payload
  }

  /// The payload fields' names.
  public var fields: [String] { payload.map(\.name) }

  public var description: String {
    fields.isEmpty ? type : "\(type)(\(fields.joined(separator: ", ")))"
  }
}

extension ActionCoding {
  /// The JSON Schema of `type`'s wire form, as a field holding such an action carries it: one
  /// of its cases' objects, or a payload-free case's bare type.
  ///
  /// ```swift
  /// ActionCoding.wireSchema(of: RowAction.self)
  /// // {"oneOf":[{"enum":["toggled"]},{"type":"object","properties":{"type":{"const":"toggled"}},
  /// //  "required":["type"],"additionalProperties":false}, …]}
  /// ```
  public static func wireSchema<A: ComposableAction>(of type: A.Type) -> JSONValue {
    let cases = cases(of: type)
    let bareTypes = cases.filter(\.payload.isEmpty).map { JSONValue.string($0.type) }
    let objects = cases.map { ActionDescriptor.objectSchema(type: $0.type, payload: $0.payload) }
    return ["oneOf": .array((bareTypes.isEmpty ? [] : [["enum": .array(bareTypes)]]) + objects)]
  }
}

extension ActionCoding {
  /// Every case of `type`, child actions' cases spelled out as dotted types: what a store's
  /// description must list.
  ///
  /// Read from the synthesized `Decodable` conformance, which is the wire form (see the type's
  /// documentation): a decoder walks each case once and stops at its first value. The cases of
  /// a synthesized `CodingKeys` enum are found from its layout: Swift numbers a payload-free
  /// enum's cases from 0 in declaration order, and the first number past the last case is the
  /// one that `Optional` uses for `nil` (the Swift ABI's extra inhabitants, docs/ABI/
  /// TypeLayout.rst), so loading 0, 1, 2, … as an optional key stops exactly after the last.
  public static func cases<A: ComposableAction>(of type: A.Type) -> [ActionCase] {
    var found: [ActionCase] = []
    walk(type, prefix: "", readingPayloads: true, into: &found)
    return found
  }

  /// The same cases without their payloads, for checking a store's action list when the store
  /// is built: reading each payload's schema casts its type to the protocols the schema looks
  /// for, and each cast the runtime has not seen scans the binary's conformances.
  public static func caseTypes<A: ComposableAction>(of type: A.Type) -> [String] {
    var found: [ActionCase] = []
    walk(type, prefix: "", readingPayloads: false, into: &found)
    return found.map(\.type)
  }

  private static func walk(
    _ type: any Decodable.Type, prefix: String, readingPayloads: Bool,
    into found: inout [ActionCase]
  ) {
    var choice = 0
    var caseCount = 1
    while choice < caseCount {
      let probe = CaseProbe(choice: choice, readsPayloads: readingPayloads)
      _ = try? type.init(from: probe)
      caseCount = probe.caseCount
      guard let name = probe.caseName else { return }
      let path = prefix + name
      if let child = probe.childAction {
        walk(child, prefix: path + ".", readingPayloads: readingPayloads, into: &found)
      } else {
        let lone = probe.fields.count == 1 && probe.fields[0].name == "_0"
        let payload = probe.fields.map { field in
          lone ? ActionDescriptor.Field("value", field.schema) : field
        }
        found.append(ActionCase(type: path, payload: payload))
      }
      choice += 1
    }
  }
}

/// Every key of a payload-free `CodingKey` enum with at least one case, in declaration order;
/// none for a key type of another shape (whose layout says nothing of its values).
///
/// A one-case enum and a case-less one look alike (no bytes; `Optional` adds a tag byte), so
/// this is for key types known to have cases: an enum's own keys, or a case's value keys once
/// a value was asked for.
func allKeys<Key: CodingKey>(of _: Key.Type) -> [Key] {
  let size = MemoryLayout<Key?>.size
  // A payload-free enum's cases fit in at most two bytes and leave `Optional` room in them;
  // anything larger, or without spare values, is no such enum.
  guard size > 0, size <= 2, MemoryLayout<Key>.size <= size else { return [] }
  var keys: [Key] = []
  for number in 0..<(1 << (8 * size)) {
    var bytes = (UInt8(truncatingIfNeeded: number), UInt8(truncatingIfNeeded: number >> 8))
    guard let key = withUnsafeBytes(of: &bytes, { $0.loadUnaligned(as: Key?.self) }) else {
      break
    }
    keys.append(key)
  }
  return keys
}

/// A decoder that takes an action enum down one case: it offers the `choice`th case as the only
/// key and notes the schema of each of the case's values, handing back placeholders; a first
/// value that is an action stops the walk, which goes on down that child's cases. Another value
/// that is an action (a field in its own wire form) is described by its cases and handed back
/// as a sample: the action its first cases make, with placeholders.
private final class CaseProbe: Decoder {
  struct Stop: Error {}

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  let choice: Int
  /// Whether the case's values are described; if not, the walk stops at the first value that
  /// is no child action.
  let readsPayloads: Bool
  /// How many samples this probe is inside: an action that holds itself would never end.
  let sampleDepth: Int?
  var caseCount = 0
  var caseName: String?
  var fields: [ActionDescriptor.Field] = []
  /// The type of the case's first value, when it is an action: the path continues there.
  var childAction: (any ComposableAction.Type)?
  private var isInsideCase = false

  init(choice: Int, readsPayloads: Bool, sampleDepth: Int? = nil) {
    self.choice = choice
    self.readsPayloads = readsPayloads
    self.sampleDepth = sampleDepth
  }

  /// A value of an action type, made of its first cases and placeholders.
  private func sample<T: Decodable>(_ type: T.Type) throws -> T {
    let depth = (sampleDepth ?? 0) + 1
    guard depth < 32 else { throw Stop() }
    return try T(from: CaseProbe(choice: 0, readsPayloads: true, sampleDepth: depth))
  }

  func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard !isInsideCase else { throw Stop() }
    let keys = allKeys(of: Key.self)
    caseCount = keys.count
    guard choice < keys.count else { throw Stop() }
    caseName = keys[choice].stringValue
    return KeyedDecodingContainer(CaseContainer(probe: self, keys: [keys[choice]]))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Stop() }
  func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Stop() }

  fileprivate func enterCase() {
    isInsideCase = true
  }

  /// One of the case's values: a field, or, first and alone, the child action the path goes on
  /// to (`Stop` then ends this walk).
  fileprivate func value<T: Decodable>(_ type: T.Type, key: some CodingKey, isOptional: Bool)
    throws -> T
  {
    if let action = T.self as? any ComposableAction.Type {
      if fields.isEmpty, key.stringValue == "_0" {
        guard sampleDepth == nil else { return try sample(T.self) }
        childAction = action
        throw Stop()
      }
      guard readsPayloads else { throw Stop() }
      if sampleDepth == nil {
        let schema = ActionCoding.wireSchema(of: action)
        fields.append(
          ActionDescriptor.Field(
            key.stringValue, isOptional ? TypeSchema.nullable(schema) : schema))
      }
      return try sample(T.self)
    }
    guard readsPayloads else { throw Stop() }
    let (value, schema) = try TypeSchema.sample(T.self)
    // The codec reads every field, an optional one included (as null): each is required.
    fields.append(
      ActionDescriptor.Field(key.stringValue, isOptional ? TypeSchema.nullable(schema) : schema))
    return value
  }
}

/// The enum's container (its one key: the chosen case) and the case's (its values' keys).
private struct CaseContainer<Key: CodingKey>: ProbingContainer {
  let probe: CaseProbe
  let keys: [Key]
  var codingPath: [any CodingKey] { [] }
  var allKeys: [Key] { keys }

  func contains(_ key: Key) -> Bool { true }
  func decodeNil(forKey key: Key) throws -> Bool { false }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try probe.value(T.self, key: key, isOptional: false)
  }

  func decodeOptional<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try probe.value(T.self, key: key, isOptional: true)
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    probe.enterCase()
    return KeyedDecodingContainer(CaseContainer<NestedKey>(probe: probe, keys: []))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw CaseProbe.Stop()
  }

  func superDecoder() throws -> any Decoder { throw CaseProbe.Stop() }
  func superDecoder(forKey key: Key) throws -> any Decoder { throw CaseProbe.Stop() }
}

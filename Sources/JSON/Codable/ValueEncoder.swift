import StateCollections

/// The `Encoder` behind ``JSONValueEncoder``.
///
/// One instance serves a whole tree: a nested value is encoded by pushing its key, running its
/// `encode(to:)` on the same instance, and popping. Containers remember how deep the path was
/// when they were made instead of copying it, so the path is only materialized when someone
/// asks for it (error messages, custom code).
final class ValueEncoder: Encoder {
  // The coder classes never escape one encoding pass on one thread, and their accesses do not
  // overlap, so the run-time exclusivity checks on their properties are skipped.
  /// The path from the encoder's base to the value being encoded.
  @exclusivity(unchecked) private var pathBelowBase: [any CodingKey]
  /// Where the encoder starts, made when a path is asked for: an encoder started deep in a
  /// patched state (an element of a tracked collection) would otherwise build its path for
  /// every element it encodes, only for error messages.
  private let basePath: (() -> [any CodingKey])?
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  /// What the value currently being encoded has written so far.
  @exclusivity(unchecked) var result = PendingValue.nothing

  init(codingPath: [any CodingKey]) {
    pathBelowBase = codingPath
    basePath = nil
  }

  /// An encoder whose path starts with `basePath()`, made only if a path is asked for.
  init(basePath: @escaping () -> [any CodingKey]) {
    pathBelowBase = []
    self.basePath = basePath
  }

  var codingPath: [any CodingKey] {
    if let basePath { basePath() + pathBelowBase } else { pathBelowBase }
  }

  /// Encodes `value` at the current path, leaving the state of the enclosing value untouched.
  func encodeCurrent<T: Encodable>(_ value: T) throws -> JSONValue {
    if let known = KnownEncodable.encode(value) {
      return known
    }
    let enclosing = result
    result = .nothing
    defer { result = enclosing }
    try value.encode(to: self)
    return result.value
  }

  /// Encodes a tracked collection, into an array made at its size: grown by appending, the
  /// array of a long list ended up to twice what it needed (50 MB for 1.2 million numbers).
  func encodeCurrent(_ collection: any ChangeTrackedCollection) throws -> JSONValue {
    let enclosing = result
    let box = ArrayBox()
    box.array.reserveCapacity(collection.count)
    result = .array(box)
    defer { result = enclosing }
    try collection.encode(to: self)
    return result.value
  }

  /// Encodes the value found at `keys` below the current path.
  func encodeNested<T: Encodable>(_ value: T, at keys: [any CodingKey], _ key: any CodingKey) throws
    -> JSONValue
  {
    if !keys.isEmpty {
      pathBelowBase.append(contentsOf: keys)
    }
    pathBelowBase.append(key)
    defer { pathBelowBase.removeLast(keys.count + 1) }
    return try encodeCurrent(value)
  }

  /// The path of a container made at `depth` (below the base) with `keys` below it.
  func codingPath(depth: Int, keys: [any CodingKey]) -> [any CodingKey] {
    (basePath?() ?? []) + Array(pathBelowBase.prefix(depth)) + keys
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    let box: ObjectBox
    if case .object(let existing) = result {
      box = existing
    } else {
      box = ObjectBox(sortsKeys: DictionaryKeys.isDictionaryKey(Key.self))
      result = .object(box)
    }
    return KeyedEncodingContainer(
      KeyedValueEncodingContainer(encoder: self, box: box, depth: pathBelowBase.count, keys: []))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    let box: ArrayBox
    if case .array(let existing) = result {
      box = existing
    } else {
      box = ArrayBox()
      result = .array(box)
    }
    return UnkeyedValueEncodingContainer(
      encoder: self, box: box, depth: pathBelowBase.count, keys: [])
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueEncodingContainerImpl(encoder: self)
  }
}

/// The value being written by one `encode(to:)` call, or by one nested container.
///
/// Containers are references (`ObjectBox`, `ArrayBox`) because the container structs handed to
/// user code are copied freely and must all write to the same place; the tree of boxes is
/// turned into a ``JSONValue`` once the writing is done.
enum PendingValue {
  case nothing
  case value(JSONValue)
  case object(ObjectBox)
  case array(ArrayBox)
  /// A `superEncoder()`: whatever its encoder ends up holding.
  case encoder(ValueEncoder)

  var value: JSONValue {
    switch self {
    case .nothing: .object(JSONObject())
    case .value(let value): value
    case .object(let box): box.value
    case .array(let box): box.value
    case .encoder(let encoder): encoder.result.value
    }
  }
}

/// The members of a keyed container under construction.
final class ObjectBox {
  @exclusivity(unchecked) var object = JSONObject()
  /// Nested containers and super encoders, written after their placeholder was inserted.
  @exclusivity(unchecked) var later: [(key: String, pending: PendingValue)] = []
  /// Whether this is a dictionary, whose keys arrive in hash order.
  let sortsKeys: Bool

  init(sortsKeys: Bool = false) {
    self.sortsKeys = sortsKeys
    // Most encoded structs have a handful of fields: one allocation instead of four doublings.
    object.reserveCapacity(8)
  }

  /// One bit per key length seen (modulo 64): a key whose length bit is clear cannot repeat an
  /// earlier key, which spares the scan for duplicates in almost every `set`.
  @exclusivity(unchecked) private var keyLengths: UInt64 = 0

  /// Sets a member; a key written twice keeps its first position and its last value.
  func set(_ value: JSONValue, forKey key: String) {
    let lengthBit: UInt64 = 1 << (key.utf8.count & 63)
    if keyLengths & lengthBit == 0 {
      keyLengths |= lengthBit
      object.appendNewKey(key, value)
    } else {
      object.updateValue(value, forKey: key)
    }
  }

  var value: JSONValue {
    for (key, pending) in later {
      object[key] = pending.value
    }
    if sortsKeys {
      object.sortKeys()
    }
    return .object(object)
  }
}

/// The elements of an unkeyed container under construction.
final class ArrayBox {
  @exclusivity(unchecked) var array: [JSONValue] = []
  /// Nested containers and super encoders, written after their placeholder was appended.
  @exclusivity(unchecked) var later: [(index: Int, pending: PendingValue)] = []

  var value: JSONValue {
    for (index, pending) in later {
      array[index] = pending.value
    }
    return .array(array)
  }
}

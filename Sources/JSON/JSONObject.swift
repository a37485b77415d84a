/// A JSON object: unique keys in insertion order.
///
/// Objects in application state are small, so entries live in one array and lookups scan it:
/// for a dozen short keys that beats hashing, and building an object costs one allocation.
/// Order is kept because serialized state and patches should read in declaration order, but it
/// is not part of the value: equality and hashing ignore it, as JSON does. Keys are compared by
/// their UTF-8 bytes, not by Swift's Unicode equivalence (see `hasSameUTF8(as:)`).
///
/// Large objects (a dictionary of many entries in the state, or a hostile input line) would make
/// the scan quadratic, so past ``linearSearchLimit`` keys the object also keeps a hash index.
public struct JSONObject: Sendable {
  public typealias Element = (key: String, value: JSONValue)

  /// One key and its value. A struct rather than the `Element` tuple: an array of a nominal
  /// type gets its runtime metadata from a static cache, an array of tuples looks it up on every
  /// allocation.
  struct Member {
    var key: String
    var value: JSONValue
  }

  /// Above this many keys, lookups go through `keyIndex` instead of a scan.
  static let linearSearchLimit = 16

  /// The entries in insertion order; keys are unique.
  private(set) var entries: [Member]
  /// Position of each key, present only when `entries.count > linearSearchLimit`.
  private var keyIndex: [UTF8Key: Int]?

  public init() {
    entries = []
  }

  /// Keys in the order given; a repeated key keeps its first position and takes its last value.
  public init(_ pairs: [(String, JSONValue)]) {
    entries = []
    entries.reserveCapacity(pairs.count)
    for (key, value) in pairs {
      self[key] = value
    }
  }

  /// Adopts entries already known to have unique keys, with their index when large.
  init(uniqueEntries: [Member], keyIndex: [UTF8Key: Int]?) {
    entries = uniqueEntries
    self.keyIndex = keyIndex
    if keyIndex == nil, entries.count > Self.linearSearchLimit {
      rebuildIndex()
    }
  }

  public var keys: [String] { entries.map(\.key) }
  public var values: [JSONValue] { entries.map(\.value) }

  /// The position of `key`, or nil.
  public func index(forKey key: String) -> Int? {
    if let keyIndex {
      return keyIndex[UTF8Key(string: key)]
    }
    // A plain loop: `firstIndex(where:)` copies each member (retaining key and value) to pass
    // it to the closure.
    for position in entries.indices where entries[position].key.hasSameUTF8(as: key) {
      return position
    }
    return nil
  }

  /// The position of `key`, trying `hint` first: when two objects share a key order (two
  /// encodings of the same struct), comparing them then costs one string compare per key.
  func index(forKey key: String, hint: Int) -> Int? {
    if hint < entries.count, entries[hint].key.hasSameUTF8(as: key) {
      return hint
    }
    return index(forKey: key)
  }

  /// The value for `key`; assigning nil removes the key, assigning to a new key appends it.
  public subscript(key: String) -> JSONValue? {
    get {
      index(forKey: key).map { entries[$0].value }
    }
    set {
      if let newValue {
        updateValue(newValue, forKey: key)
      } else {
        removeValue(forKey: key)
      }
    }
  }

  /// Sets the value of `key` in place, or appends it; returns the previous value.
  @discardableResult
  public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
    if let position = index(forKey: key) {
      defer { entries[position].value = value }
      return entries[position].value
    }
    appendNewKey(key, value)
    return nil
  }

  /// Removes `key`, shifting later entries down; returns the removed value.
  @discardableResult
  public mutating func removeValue(forKey key: String) -> JSONValue? {
    guard let position = index(forKey: key) else { return nil }
    let removed = entries.remove(at: position).value
    if keyIndex != nil {
      rebuildIndex()
    }
    return removed
  }

  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    entries.reserveCapacity(minimumCapacity)
  }

  /// Mutable access to the value at a position, for in-place edits of nested documents.
  subscript(valueAt position: Int) -> JSONValue {
    get { entries[position].value }
    _modify { yield &entries[position].value }
  }

  /// Appends a key the caller knows is absent.
  mutating func appendNewKey(_ key: String, _ value: JSONValue) {
    entries.append(Member(key: key, value: value))
    if keyIndex != nil {
      keyIndex![UTF8Key(string: key)] = entries.count - 1
    } else if entries.count > Self.linearSearchLimit {
      rebuildIndex()
    }
  }

  /// Orders the keys: numerically when every key is an integer (a dictionary keyed by `Int`),
  /// by code point otherwise (UTF-8 byte order is code point order).
  mutating func sortKeys() {
    let numericKeys = entries.map { Int($0.key) }
    if numericKeys.allSatisfy({ $0 != nil }) {
      entries = zip(numericKeys, entries).sorted { $0.0! < $1.0! }.map(\.1)
    } else {
      entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }
    if keyIndex != nil {
      rebuildIndex()
    }
  }

  private mutating func rebuildIndex() {
    guard entries.count > Self.linearSearchLimit else {
      keyIndex = nil
      return
    }
    var index = [UTF8Key: Int](minimumCapacity: entries.count)
    for (position, entry) in entries.enumerated() {
      index[UTF8Key(string: entry.key)] = position
    }
    keyIndex = index
  }
}

extension JSONObject: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { entries.count }
  public subscript(position: Int) -> Element {
    let member = entries[position]
    return (member.key, member.value)
  }
}

extension JSONObject: Hashable {
  /// Order-insensitive: same keys with equal values.
  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    guard lhs.entries.count == rhs.entries.count else { return false }
    for position in lhs.entries.indices {
      guard let other = rhs.index(forKey: lhs.entries[position].key, hint: position),
        rhs.entries[other].value == lhs.entries[position].value
      else { return false }
    }
    return true
  }

  /// Combines per-entry hashes with a commutative operation, so key order does not matter.
  public func hash(into hasher: inout Hasher) {
    var combined = 0
    for entry in entries {
      var entryHasher = Hasher()
      entry.key.hashUTF8(into: &entryHasher)
      entryHasher.combine(entry.value)
      combined &+= entryHasher.finalize()
    }
    hasher.combine(entries.count)
    hasher.combine(combined)
  }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self.init(elements)
  }
}

extension JSONObject: CustomStringConvertible {
  public var description: String { JSONValue.object(self).jsonString }
}

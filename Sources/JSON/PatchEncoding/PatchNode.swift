import StateCollections

/// What ``JSONPatchEncoder`` remembers of one value it encoded.
///
/// A value encoded as a keyed container (a struct) is remembered member by member, so that a
/// later walk descends only into the members that changed; an array walked again with as many
/// elements is remembered element by element the same way; anything else (a scalar, a
/// dictionary, a single-value encoding, an array that changed length) is remembered as its
/// JSON and diffed whole when it changed.
final class PatchNode {
  /// The member's key in its parent; empty for the root.
  let key: String
  /// The parent, which owns this node.
  unowned(unsafe) let parent: PatchNode?
  /// The JSON of a value remembered whole; meaningless while `members` is set.
  var json: JSONValue
  /// The members of a value encoded as a keyed container, in the order they were first met,
  /// or the elements of an array (``isArray``), keyed by their positions.
  var members: [PatchNode]?
  /// Whether `members` are an array's elements.
  private(set) var isArray = false
  /// A copy of the value last encoded here, while it is known: a later value with the same
  /// bits is the same value, and is not encoded again.
  ///
  /// Equal bits mean an equal value because the copy retains what the value references: an
  /// array or string it holds cannot be freed (so its address cannot come back holding
  /// something else), nor changed in place (copy-on-write sees a second reference and copies).
  /// This holds for values — a state's encoding must depend on its value alone, and a class a
  /// state holds must not change. Unequal bits only mean "encode again": padding, or two
  /// copies of an equal string, differ in bits and are re-encoded and found equal.
  ///
  /// The copy lives in raw memory with its type's identity beside it, rather than in a generic
  /// box: checking a `Box<T>` would look up its metadata on every member of every walk.
  private var witnessType: ObjectIdentifier?
  private var witness: UnsafeMutableRawPointer?
  private var destroyWitness: ((UnsafeMutableRawPointer) -> Void)?
  /// The version last written of a collection that tells what changed since. While this is
  /// set, `json` is the reader's JSON of the collection, for an assignment over it to be
  /// diffed against, as long as the walk can keep it cheaply (see `PatchWalk.patchTracked`);
  /// otherwise null, the reader's copy then known by its version alone.
  private(set) var tracked: ChangeToken?
  /// Whether a change-tracked collection is below: a copy of this value, kept as a witness,
  /// would share the collection's storage and make its next change copy all of it, so this
  /// value is walked every time instead.
  private(set) var containsTracked = false
  /// The keyed container handed to this value's `encode(to:)`, kept for the next walk: making
  /// one allocates a box and looks up its generic metadata.
  var keyedContainer: (key: ObjectIdentifier, container: AnyObject)?
  /// How values of the type last patched here are patched, found on the first value of the
  /// type: whether a type is a tracked collection is a dynamic cast, which scans the binary's
  /// conformances and copies the value.
  private var shape: (type: ObjectIdentifier, shape: ValueShape)?
  /// The walk that last wrote this member: members a walk did not write were removed.
  var generation: UInt = 0
  /// Where the next member is expected among `members`: one past the last one found.
  var nextMember = 0
  /// Nested containers and super encoders of this value, read when its `encode(to:)` returned.
  var later: [(key: String, pending: PendingValue)] = []

  init(key: String, parent: PatchNode?, json: JSONValue) {
    self.key = key
    self.parent = parent
    self.json = json
  }

  /// The JSON Pointer text of this value, made on first use: most members never change.
  private(set) lazy var pointer: String =
    if let parent { parent.pointer + "/" + JSONPointer.escape(key) } else { "" }

  /// `{"op":"replace","path":"<pointer>","value":`, for the members that change often.
  private(set) lazy var replacePrefix: [UInt8] = {
    var prefix = Array(#"{"op":"replace","path":"#.utf8)
    JSONWriter.writeString(pointer, into: &prefix)
    prefix.append(contentsOf: #","value":"#.utf8)
    return prefix
  }()

  deinit {
    forgetWitness()
  }

  /// How values of `value`'s type are patched here.
  func shape<T: Encodable>(of value: T) -> ValueShape {
    if let shape, shape.type == ObjectIdentifier(T.self) { return shape.shape }
    let found = ValueShape(of: value)
    shape = (ObjectIdentifier(T.self), found)
    return found
  }

  /// Whether `value` has the bits of the value remembered.
  func hasWitness<T>(_ value: T) -> Bool {
    guard witnessType == ObjectIdentifier(T.self), let witness else { return false }
    return withUnsafeBytes(of: value) {
      hasSameBytes($0, UnsafeRawBufferPointer(start: witness, count: MemoryLayout<T>.size))
    }
  }

  /// Remembers `value`, to recognize it next time.
  func remember<T>(_ value: T) {
    if witnessType == ObjectIdentifier(T.self), let witness {
      witness.assumingMemoryBound(to: T.self).pointee = value
      return
    }
    forgetWitness()
    let witness = UnsafeMutableRawPointer.allocate(
      byteCount: Swift.max(MemoryLayout<T>.size, 1), alignment: MemoryLayout<T>.alignment)
    witness.initializeMemory(as: T.self, to: value)
    self.witness = witness
    witnessType = ObjectIdentifier(T.self)
    destroyWitness = { $0.assumingMemoryBound(to: T.self).deinitialize(count: 1) }
  }

  /// Remembers the version of a change-tracked collection written here.
  func track(_ token: ChangeToken) {
    forgetWitness()
    tracked = token
    var ancestor = parent
    while let node = ancestor, !node.containsTracked {
      node.containsTracked = true
      node.forgetWitness()
      ancestor = node.parent
    }
  }

  /// Forgets the tracked collection's version: the value here is something else now.
  func untrack() {
    tracked = nil
  }

  /// Forgets the value: what is remembered now was not encoded from one.
  func forgetWitness() {
    guard let witness else { return }
    destroyWitness?(witness)
    witness.deallocate()
    self.witness = nil
    witnessType = nil
    destroyWitness = nil
  }

  var codingPath: [any CodingKey] {
    guard let parent else { return [] }
    return parent.codingPath + [JSONKey(stringValue: key)]
  }

  /// Whether the value was a struct or another JSON object last time: a keyed container it
  /// asks for now can be patched member by member.
  var mayHaveMembers: Bool {
    if members != nil { return !isArray }
    if case .object = json { return true }
    return false
  }

  /// Turns a value remembered as a JSON object into one remembered member by member; true
  /// when the value is now remembered that way.
  func rememberMembers() -> Bool {
    if members != nil { return !isArray }
    guard case .object(let object) = json else { return false }
    members = object.entries.map { PatchNode(key: $0.key, parent: self, json: $0.value) }
    json = .null
    return true
  }

  /// Turns a value remembered as a JSON array of `count` elements, at most `limit`, into one
  /// remembered element by element; true when the value is remembered that way with `count`
  /// elements. Another count is left to the differ: an element inserted or removed in the
  /// middle is one operation there, and a replace of each element after it here.
  func rememberElements(count: Int, limit: Int) -> Bool {
    if let members { return isArray && members.count == count }
    guard case .array(let elements) = json, elements.count == count, count <= limit else {
      return false
    }
    members = elements.indices.map {
      PatchNode(key: String($0), parent: self, json: elements[$0])
    }
    isArray = true
    json = .null
    return true
  }

  /// Forgets the members or elements: the value is remembered as its JSON from now on.
  func forgetMembers() {
    members = nil
    isArray = false
  }

  /// The JSON the reader holds for this value, put together from its members; nil when part
  /// of it is not kept (a long tracked collection, known by its version alone).
  func currentJSON() -> JSONValue? {
    if tracked != nil {
      if case .array = json { return json }
      return nil
    }
    guard let members else { return json }
    if isArray {
      var elements: [JSONValue] = []
      elements.reserveCapacity(members.count)
      for member in members {
        guard let json = member.currentJSON() else { return nil }
        elements.append(json)
      }
      return .array(elements)
    }
    var object = JSONObject()
    for member in members {
      guard let json = member.currentJSON() else { return nil }
      _ = object.updateValue(json, forKey: member.key)
    }
    return .object(object)
  }

  /// The position of the member for `key`; nil when there is none. A struct writes its
  /// members in the same order every time, so the one after the last found is tried first.
  func memberPosition(forKey key: String) -> Int? {
    guard let members else { return nil }
    var found: Int?
    if nextMember < members.count, members[nextMember].key.hasSameUTF8(as: key) {
      found = nextMember
    } else {
      for position in members.indices where members[position].key.hasSameUTF8(as: key) {
        found = position
        break
      }
    }
    if let found { nextMember = found + 1 == members.count ? 0 : found + 1 }
    return found
  }
}

/// What kind of value a type's values are, to a walk.
enum ValueShape {
  /// One ``KnownEncodable`` writes without its `encode(to:)`.
  case known
  /// A ``ChangeTrackedCollection``, read through its type's witnesses.
  case tracked(TrackedAccess)
  /// An `Array`, whose length is read before it is walked.
  case array(count: (UnsafeRawPointer) -> Int)
  /// An `Optional`, whose wrapped value is walked in its place, `nil` being `null`: as a
  /// struct's `encodeIfPresent` writes a member, and not as its own `encode(to:)` would, whole.
  case optional(wrapped: (UnsafeRawPointer) -> (any Encodable)?)
  /// Anything else: walked by its `encode(to:)`.
  case other

  /// The shape of `value`'s type.
  init<T: Encodable>(of value: T) {
    if KnownEncodable.encode(value) != nil {
      self = .known
    } else if let tracked = T.self as? any ChangeTrackedCollection.Type {
      self = .tracked(TrackedAccess(tracked))
    } else if let array = T.self as? any CountedEncodable.Type {
      self = .array(count: array.count(at:))
    } else if let optional = T.self as? any OptionalEncodable.Type {
      self = .optional(wrapped: optional.wrapped(at:))
    } else {
      self = .other
    }
  }
}

/// An array, whose length a walk compares with the last one's before walking it.
protocol CountedEncodable: Encodable {
  var count: Int { get }
}

extension CountedEncodable {
  static func count(at value: UnsafeRawPointer) -> Int {
    value.assumingMemoryBound(to: Self.self).pointee.count
  }
}

extension Array: CountedEncodable where Element: Encodable {}

/// An optional, whose wrapped value a walk patches in its place.
protocol OptionalEncodable: Encodable {
  var wrappedEncodable: (any Encodable)? { get }
}

extension OptionalEncodable {
  static func wrapped(at value: UnsafeRawPointer) -> (any Encodable)? {
    value.assumingMemoryBound(to: Self.self).pointee.wrappedEncodable
  }
}

extension Optional: OptionalEncodable where Wrapped: Encodable {
  var wrappedEncodable: (any Encodable)? { self }
}

/// A tracked collection's version and its whole self, read from a value of its type in place.
struct TrackedAccess {
  let token: (UnsafeRawPointer) -> ChangeToken
  let collection: (UnsafeRawPointer) -> any ChangeTrackedCollection

  init<C: ChangeTrackedCollection>(_: C.Type) {
    token = { $0.assumingMemoryBound(to: C.self).pointee.changeToken }
    collection = { $0.assumingMemoryBound(to: C.self).pointee }
  }
}

/// Whether two buffers of the same length hold the same bytes.
private func hasSameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
  let count = a.count
  var offset = 0
  while offset + 8 <= count {
    if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
      != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    {
      return false
    }
    offset += 8
  }
  while offset < count {
    if a[offset] != b[offset] { return false }
    offset += 1
  }
  return true
}

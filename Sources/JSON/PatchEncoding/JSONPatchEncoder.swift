import StateCollections

/// Encodes successive values of one `Encodable` type and writes, for each, the RFC 6902 patch
/// from the value before: the cost of a patch follows what changed, not the size of the value.
///
/// The encoder walks each new value with `encode(to:)`, as `JSONValueEncoder` does, against
/// what it remembers of the last one (``PatchNode``): a struct member by member, anything else
/// as its JSON. A member whose value has the same bits as last time is skipped without being
/// encoded (the copy of it its node keeps makes that sound); a changed scalar is one `replace`;
/// a changed struct is walked the same way; a changed array as long as the last one (up to
/// ``PatchWalk/maxWalkedElements``) is walked element by element the same way, so a book of
/// levels whose numbers changed is a `replace` per changed number; an array that changed length
/// and a changed dictionary are encoded and diffed (`JSONPatch.diff`), which writes an element
/// inserted in the middle as one `add`; a ``ChangeTrackedCollection`` member says which of its
/// positions changed, and only those elements are encoded. The patch is valid RFC 6902 and
/// turns the last value's encoding into the new one's; it is not always the one
/// `JSONPatch.diff` would find (an array whose elements moved but kept its length is patched
/// position by position).
///
/// ```swift
/// let encoder = try JSONPatchEncoder(Counter(count: 1, name: "a"))
/// var bytes: [UInt8] = []
/// try encoder.writePatch(to: Counter(count: 2, name: "a"), into: &bytes)
/// // [{"op":"replace","path":"/count","value":2}]
/// ```
///
/// What a value must be: its encoding depends on its value alone (derived members, such as
/// `isPrime` computed from `count`, are fine), and a class it holds never changes. After an
/// error the encoder is of no further use.
public final class JSONPatchEncoder<Value: Encodable> {
  private let walk: PatchWalk

  /// Remembers `initial` as the value the first patch starts from.
  public init(_ initial: Value) throws {
    walk = PatchWalk(root: PatchNode(key: "", parent: nil, json: .object(JSONObject())))
    try walk.remember(initial)
  }

  /// Appends the patch from the last value to `value`, as a JSON array, and remembers `value`.
  /// Remembers `value` as the value the next patch starts from, whatever was patched before.
  public func reset(to value: Value) throws {
    try walk.remember(value)
  }

  public func writePatch(to value: Value, into bytes: inout [UInt8]) throws {
    try walk.writePatch(to: value, into: &bytes)
  }
}

/// The `Encoder` a new value is walked with: it compares what each member writes with its
/// ``PatchNode`` and writes the operations for what differs.
final class PatchWalk: Encoder {
  let root: PatchNode
  /// The node of the value whose `encode(to:)` is running.
  @exclusivity(unchecked) private var node: PatchNode
  /// Set when that value asked for an unkeyed or single-value container: it is then encoded
  /// whole, by this plain encoder, and diffed.
  @exclusivity(unchecked) private var plain: ValueEncoder?
  @exclusivity(unchecked) private var generation: UInt = 0
  /// The patch being written, and whether an operation was written yet.
  @exclusivity(unchecked) private var bytes: [UInt8] = []
  @exclusivity(unchecked) private var isFirstOperation = true
  /// Set while a value is walked only to be remembered: no operation is written.
  @exclusivity(unchecked) private var isSilent = false
  @exclusivity(unchecked) private var operations: [JSONPatchOperation] = []

  init(root: PatchNode) {
    self.root = root
    self.node = root
  }

  var codingPath: [any CodingKey] { node.codingPath }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func writePatch<Value: Encodable>(to value: Value, into bytes: inout [UInt8]) throws {
    var isFirstOperation = true
    bytes.append(UInt8(ascii: "["))
    try writePatch(of: root, to: value, into: &bytes, isFirstOperation: &isFirstOperation)
    bytes.append(UInt8(ascii: "]"))
  }

  /// Walks `value` from `node` (the root by default) without writing a patch, to remember it.
  func remember<Value: Encodable>(_ value: Value, at node: PatchNode? = nil) throws {
    generation &+= 1
    try walkSilently(value, at: node ?? root)
  }

  /// Appends to `bytes` the operations that bring `node` to `value`; `isFirstOperation` says
  /// whether none was written before in this patch, and is false afterwards if one was.
  func writePatch<Value: Encodable>(
    of node: PatchNode, to value: Value, into bytes: inout [UInt8], isFirstOperation: inout Bool
  ) throws {
    try writing(into: &bytes, isFirstOperation: &isFirstOperation) {
      generation &+= 1
      try patch(value, at: node)
    }
  }

  /// Appends the operation that brings `node` to `value` when `value` is an `Int`, a `Bool` or
  /// a `String`, the commonest members of a state, without the walk's generic steps (the
  /// witness, the shape, the conversion through ``KnownEncodable``): about half of a counter's
  /// patch. False, with nothing done, for any other type.
  func writeScalarChange<Value: Encodable>(
    of node: PatchNode, to value: Value, into bytes: inout [UInt8], isFirstOperation: inout Bool
  ) -> Bool {
    let new: JSONValue
    if let value = exactly(value, as: Int.self) {
      new = .int(value)
    } else if let value = exactly(value, as: Bool.self) {
      new = .bool(value)
    } else if let value = exactly(value, as: String.self) {
      new = .string(value)
    } else {
      return false
    }
    writeScalarChange(of: node, toScalar: new, into: &bytes, isFirstOperation: &isFirstOperation)
    return true
  }

  /// Appends the operation that brings `node` to `new`, a scalar.
  func writeScalarChange(
    of node: PatchNode, toScalar new: JSONValue, into bytes: inout [UInt8],
    isFirstOperation: inout Bool
  ) {
    guard node.members == nil, node.tracked == nil else {
      writing(into: &bytes, isFirstOperation: &isFirstOperation) { updateScalar(node, to: new) }
      return
    }
    // The node holds the member's last scalar as JSON, as it does from the member's second
    // patch on: what `updateScalar` does for it, written here straight into the caller's
    // buffer, without swapping it in and out of the walk's.
    node.forgetWitness()
    if node.json == new { return }
    node.json = new
    if !isFirstOperation { bytes.append(UInt8(ascii: ",")) }
    isFirstOperation = false
    bytes.append(contentsOf: node.replacePrefix)
    new.write(into: &bytes)
    bytes.append(UInt8(ascii: "}"))
  }

  /// Runs `body` writing operations into the caller's buffer, which is swapped in and out
  /// rather than copied.
  private func writing(
    into bytes: inout [UInt8], isFirstOperation: inout Bool, _ body: () throws -> Void
  ) rethrows {
    swap(&self.bytes, &bytes)
    defer { swap(&self.bytes, &bytes) }
    self.isFirstOperation = isFirstOperation
    defer { isFirstOperation = self.isFirstOperation }
    try body()
  }

  /// Appends the operation that brings `node` from `first`, a value it was never walked with,
  /// to `value`, when both are scalars: compared as JSON, `first` needs no walk. False, with
  /// nothing written, when either is not a scalar.
  func writeScalarPatch<First: Encodable, Value: Encodable>(
    of node: PatchNode, from first: First, to value: Value, into bytes: inout [UInt8],
    isFirstOperation: inout Bool
  ) -> Bool {
    guard let old = KnownEncodable.encode(first), old.isScalar,
      let new = KnownEncodable.encode(value), new.isScalar
    else { return false }
    node.forgetMembers()
    node.untrack()
    node.json = new
    node.remember(value)
    if old != new {
      writing(into: &bytes, isFirstOperation: &isFirstOperation) { writeReplace(node, new) }
    }
    return true
  }

  // MARK: Members

  /// Brings `node` up to `value`, writing the operations for what changed.
  func patch<T: Encodable>(_ value: T, at node: PatchNode) throws {
    if node.hasWitness(value) { return }
    switch node.shape(of: value) {
    case .known:
      update(node, to: KnownEncodable.encode(value)!)
      node.remember(value)
    case .tracked(let access):
      try withUnsafePointer(to: value) { pointer in
        let value = UnsafeRawPointer(pointer)
        if let written = node.tracked, written == access.token(value) { return }
        try patchTracked(access.collection(value), at: node)
      }
    case .array(let count):
      let length = withUnsafePointer(to: value) { count(UnsafeRawPointer($0)) }
      if node.rememberElements(count: length, limit: Self.maxWalkedElements) {
        try walkRemembering(value, at: node)
      } else {
        try encodeWhole(value, at: node)
      }
    case .optional(let wrapped):
      if let wrapped = withUnsafePointer(to: value, { wrapped(UnsafeRawPointer($0)) }) {
        try patch(wrapped, at: node)
      } else {
        update(node, to: .null)
        node.remember(value)
      }
    case .other where node.mayHaveMembers:
      try walkRemembering(value, at: node)
    case .other:
      try encodeWhole(value, at: node)
    }
  }

  /// The length up to which an array is remembered element by element, each element a node:
  /// past it, the nodes would cost many times the array's own memory.
  static let maxWalkedElements = 1_024

  /// Walks a value remembered member by member (or element by element), then remembers it.
  private func walkRemembering<T: Encodable>(_ value: T, at node: PatchNode) throws {
    let walked = try walkMembers(of: value, at: node)
    if walked && node.containsTracked { node.forgetWitness() } else { node.remember(value) }
  }

  /// Encodes a value whole and diffs it against what the reader holds, put together from the
  /// members when it was remembered by member (an array that changed length).
  private func encodeWhole<T: Encodable>(_ value: T, at node: PatchNode) throws {
    let new = try ValueEncoder(basePath: { node.codingPath }).encodeCurrent(value)
    if node.members != nil, let old = node.currentJSON() {
      node.forgetMembers()
      node.json = old
    }
    update(node, to: new)
    try rememberEncoded(value, at: node)
  }

  /// Remembers a value just encoded whole, as a new member.
  func rememberFirstSight<T: Encodable>(_ value: T, at node: PatchNode) throws {
    if let collection = value as? any ChangeTrackedCollection {
      node.track(collection.changeToken)
    } else {
      try rememberEncoded(value, at: node)
    }
  }

  /// Remembers a value, not a tracked collection, just encoded whole. A struct (a JSON object)
  /// is walked again, silently, so that its members are remembered one by one, and a tracked
  /// collection among them is found before a copy of the struct is kept.
  private func rememberEncoded<T: Encodable>(_ value: T, at node: PatchNode) throws {
    if case .object = node.json {
      try walkSilently(value, at: node)
    } else {
      node.remember(value)
    }
  }

  private func walkSilently<T: Encodable>(_ value: T, at node: PatchNode) throws {
    let wasSilent = isSilent
    isSilent = true
    defer { isSilent = wasSilent }
    node.forgetMembers()
    node.json = .object(JSONObject())
    node.forgetWitness()
    try patch(value, at: node)
  }

  /// Runs the value's `encode(to:)` with `node` as the current node: a keyed container it asks
  /// for patches the members. True when it did; false when the value was encoded whole.
  private func walkMembers<T: Encodable>(of value: T, at node: PatchNode) throws -> Bool {
    let (enclosingNode, enclosingPlain) = (self.node, plain)
    (self.node, plain) = (node, nil)
    defer { (self.node, plain) = (enclosingNode, enclosingPlain) }
    try value.encode(to: self)
    if let plain {
      update(node, to: plain.result.value)
      return false
    } else if node.members != nil {
      finishMembers(of: node)
    } else {
      // It wrote nothing at all, which encodes as `{}`.
      update(node, to: .object(JSONObject()))
    }
    return true
  }

  // MARK: Tracked collections

  /// Changes beyond which a tracked collection is written whole: following each change to the
  /// end of the list costs the square of their number.
  static let maxTrackedChanges = 256

  /// The length up to which a tracked collection's JSON is kept up to date through changes at
  /// its end: past it, keeping the JSON beside the elements would double a large list's memory.
  static let maxFollowedCount = 1_024

  /// Writes the changes a tracked collection reports since the version written last. When
  /// they cannot be told (another history: an assignment, a sort), the collection is diffed
  /// against the reader's JSON if it was kept, so that assigning an equal collection writes
  /// nothing; otherwise it is written whole.
  ///
  /// That JSON is what was last written whole, kept up to date through every change while the
  /// list is short (``maxFollowedCount``): a change in the middle moves the elements after it,
  /// few enough, and an equal list assigned after one still writes nothing.
  private func patchTracked(_ collection: any ChangeTrackedCollection, at node: PatchNode) throws {
    let token = collection.changeToken
    if let written = node.tracked {
      if written == token { return }
      if let changes = token.changes(since: written), changes.count <= Self.maxTrackedChanges {
        var followed: [JSONValue]?
        if case .array(let elements) = node.json { followed = elements }
        // The node lets go of the array, which is then changed in place.
        node.json = .null
        try writeChanges(changes, of: collection, at: node, following: &followed)
        if let followed { node.json = .array(followed) }
        node.track(token)
        return
      }
    }
    let new = try ValueEncoder(basePath: { node.codingPath }).encodeCurrent(collection)
    if node.tracked != nil, case .array = node.json {
      writeSmallerPatch(of: node, from: node.json, to: new)
      node.json = new
    } else {
      update(node, to: new)
    }
    node.track(token)
  }

  /// Writes the shorter of the difference from `old` to `new` and one `replace` with `new`:
  /// a list refilled with mostly the same elements is the few that changed, while filling an
  /// empty one or emptying a full one is one operation, not one per element.
  private func writeSmallerPatch(of node: PatchNode, from old: JSONValue, to new: JSONValue) {
    guard !isSilent else { return }
    // Filling an empty list or emptying a full one: an operation per element costs more than
    // the list written once, and the diff would hold them all (a 10 MB list of numbers made
    // 100 MB of operations before the replace won).
    if case .array(let before) = old, case .array(let after) = new,
      before.isEmpty != after.isEmpty, max(before.count, after.count) > 1
    {
      writeReplace(node, new)
      return
    }
    operations.removeAll(keepingCapacity: true)
    JSONPatch.diff(from: old, to: new, at: node.pointer, into: &operations)
    // A single operation writes one element at most: about the whole at worst.
    guard operations.count > 1 else {
      for operation in operations where beginOperation() { operation.write(into: &bytes) }
      return
    }
    var whole = node.replacePrefix
    new.write(into: &whole)
    whole.append(UInt8(ascii: "}"))
    // The operations are written until they are longer than the whole, not all of them.
    let (start, wasFirstOperation) = (bytes.count, isFirstOperation)
    let limit = start + (wasFirstOperation ? 0 : 1) + whole.count
    for operation in operations where beginOperation() {
      operation.write(into: &bytes)
      if bytes.count > limit {
        bytes.removeSubrange(start...)
        isFirstOperation = wasFirstOperation
        _ = beginOperation()
        bytes.append(contentsOf: whole)
        return
      }
    }
  }

  /// The operations of the changes, each at the position it was made: an added element is
  /// written as it is now, an updated one as the difference between the element it replaced
  /// and what it is now. Positions are followed through the later changes to find an element
  /// as it is now; one removed by a later change is not written again (an addition of it is
  /// written as null, then removed), nor is an element written twice. `followed`, the reader's
  /// JSON of the collection when it is kept, gets each operation written, or becomes nil.
  private func writeChanges(
    _ records: [ChangeRecord], of collection: any ChangeTrackedCollection, at node: PatchNode,
    following followed: inout [JSONValue]?
  ) throws {
    // The final positions written, few (a patch holds up to `maxTrackedChanges` changes and
    // mostly one): a list searched is cheaper than a set's hashing and storage. Only a later
    // record reads it, so the last one (mostly the only one) adds nothing to it.
    var written: [Int] = []
    for (index, record) in records.enumerated() {
      let later = records[(index + 1)...]
      switch record.change {
      case .removed(let position):
        writeOperation(
          prefix: #"{"op":"remove","path":"#, "\(node.pointer)/\(position)", value: nil)
        if let count = followed?.count, position < count {
          followed?.remove(at: position)
        } else {
          followed = nil
        }
      case .inserted(let position):
        var json = JSONValue.null
        if let final = finalPosition(position, after: later) {
          if !later.isEmpty { written.append(final) }
          json = try encodeElement(collection.encodableElement(at: final), position, at: node)
        }
        writeOperation(prefix: #"{"op":"add","path":"#, "\(node.pointer)/\(position)", value: json)
        if let count = followed?.count, position <= count, count < Self.maxFollowedCount {
          followed?.insert(json, at: position)
        } else {
          followed = nil
        }
      case .updated(let position):
        guard let final = finalPosition(position, after: later), !written.contains(final)
        else { continue }
        if !later.isEmpty { written.append(final) }
        guard let previous = record.previous else { continue }
        // The followed JSON holds the element as it was before this change: encoding the
        // element the journal kept would give the same JSON at the cost of a second encoding.
        let old: JSONValue
        if let followed, position < followed.count {
          old = followed[position]
        } else {
          old = try encodeElement(
            collection.encodable(previousElement: previous), position, at: node)
        }
        let new = try encodeElement(collection.encodableElement(at: final), position, at: node)
        writeDifference(from: old, to: new, at: node.pointer, element: position)
        followed?[position] = new
      }
    }
  }

  /// Where the element at `position` is after `later` changes; nil if one removes it. A later
  /// addition or removal moves the positions at or after its own.
  private func finalPosition(_ position: Int, after later: ArraySlice<ChangeRecord>) -> Int? {
    var position = position
    for record in later {
      switch record.change {
      case .inserted(let other) where other <= position: position += 1
      case .removed(let other) where other == position: return nil
      case .removed(let other) where other < position: position -= 1
      default: break
      }
    }
    return position
  }

  private func encodeElement(_ element: any Encodable, _ position: Int, at node: PatchNode) throws
    -> JSONValue
  {
    try ValueEncoder(basePath: { node.codingPath + [JSONKey(intValue: position)] })
      .encodeCurrent(element)
  }

  /// The member of `parent` for `key`, marked as written by this walk; nil when it is new.
  func member(of parent: PatchNode, forKey key: String) -> PatchNode? {
    guard let position = parent.memberPosition(forKey: key) else { return nil }
    let member = parent.members![position]
    member.generation = generation
    return member
  }

  /// Sets the scalar member of `parent` for `key` to `json`, marked as written by this walk.
  func setScalar(_ json: JSONValue, forKey key: String, of parent: PatchNode) {
    guard let position = parent.memberPosition(forKey: key) else {
      addMember(to: parent, key: key, json: json)
      return
    }
    // The parent holds the member: no reference of its own is taken, which would cost a
    // retain and a release per member of every walk.
    unowned(unsafe) let member = parent.members.unsafelyUnwrapped[position]
    member.generation = generation
    updateScalar(member, to: json)
  }

  /// Brings the member of `parent` for `key` to `value`, marked as written by this walk;
  /// false when there is no such member yet.
  func patchMember<T: Encodable>(_ value: T, forKey key: String, of parent: PatchNode) throws
    -> Bool
  {
    guard let position = parent.memberPosition(forKey: key) else { return false }
    unowned(unsafe) let member = parent.members.unsafelyUnwrapped[position]
    member.generation = generation
    try patch(value, at: member)
    return true
  }

  /// Sets the scalar element of `parent` at `position` to `json`, marked as written by this
  /// walk; an element past the last one is added.
  func setScalar(_ json: JSONValue, at position: Int, of parent: PatchNode) {
    guard position < parent.members.unsafelyUnwrapped.count else {
      addMember(to: parent, key: String(position), json: json)
      return
    }
    unowned(unsafe) let element = parent.members.unsafelyUnwrapped[position]
    element.generation = generation
    updateScalar(element, to: json)
  }

  /// Brings the element of `parent` at `position` to `value`, marked as written by this walk;
  /// an element past the last one is added.
  func patchElement<T: Encodable>(_ value: T, at position: Int, of parent: PatchNode) throws {
    guard position < parent.members.unsafelyUnwrapped.count else {
      let json = try ValueEncoder(basePath: { parent.codingPath + [JSONKey(intValue: position)] })
        .encodeCurrent(value)
      try rememberFirstSight(value, at: addMember(to: parent, key: String(position), json: json))
      return
    }
    unowned(unsafe) let element = parent.members.unsafelyUnwrapped[position]
    element.generation = generation
    try patch(value, at: element)
  }

  /// Adds a member that did not exist.
  @discardableResult
  func addMember(to parent: PatchNode, key: String, json: JSONValue) -> PatchNode {
    let member = PatchNode(key: key, parent: parent, json: json)
    member.generation = generation
    parent.members!.append(member)
    parent.nextMember = 0
    writeOperation(prefix: #"{"op":"add","path":"#, member.pointer, value: json)
    return member
  }

  /// After a struct's `encode(to:)`: its nested containers are read, and the members it did not
  /// write this time are removed.
  private func finishMembers(of node: PatchNode) {
    for (key, pending) in node.later {
      let json = pending.value
      if let member = member(of: node, forKey: key) {
        member.forgetWitness()
        update(member, to: json)
      } else {
        addMember(to: node, key: key, json: json)
      }
    }
    node.later.removeAll()
    guard var members = node.members,
      members.contains(where: { $0.generation != generation })
    else { return }
    if node.isArray {
      // An array's elements are written in order: those not written this time are the last
      // ones, removed from the end so that each position removed is still there.
      for member in members.reversed() where member.generation != generation {
        writeOperation(prefix: #"{"op":"remove","path":"#, member.pointer, value: nil)
      }
      members.removeAll { $0.generation != generation }
      node.members = members
      return
    }
    members.removeAll { member in
      guard member.generation != generation else { return false }
      writeOperation(prefix: #"{"op":"remove","path":"#, member.pointer, value: nil)
      return true
    }
    node.members = members
  }

  /// Sets a node remembered whole to `new`, writing a `replace` or the differ's operations.
  func update(_ node: PatchNode, to new: JSONValue) {
    if node.members != nil || node.tracked != nil {
      // What was written last is not kept as JSON: replaced whole.
      node.forgetMembers()
      node.untrack()
      node.json = new
      writeReplace(node, new)
      return
    }
    let old = node.json
    node.json = new
    switch (old, new) {
    case (.array, .array), (.object, .object):
      guard !isSilent else { return }
      operations.removeAll(keepingCapacity: true)
      JSONPatch.diff(from: old, to: new, at: node.pointer, into: &operations)
      for operation in operations where beginOperation() {
        operation.write(into: &bytes)
      }
    default:
      if old != new { writeReplace(node, new) }
    }
  }

  /// Writes the operations that turn `old` into `new` at element `element` of the array at
  /// `pointer`, a value no node remembers.
  private func writeDifference(
    from old: JSONValue, to new: JSONValue, at pointer: String, element: Int
  ) {
    guard !isSilent else { return }
    operations.removeAll(keepingCapacity: true)
    JSONPatch.diff(from: old, to: new, at: pointer, element: element, into: &operations)
    for operation in operations where beginOperation() {
      operation.write(into: &bytes)
    }
  }

  /// Sets a member that is a scalar to `new`.
  func updateScalar(_ node: PatchNode, to new: JSONValue) {
    node.forgetWitness()
    if node.members == nil, node.tracked == nil, node.json == new { return }
    update(node, to: new)
  }

  // MARK: Writing operations

  /// Starts an operation: false when none is to be written.
  private func beginOperation() -> Bool {
    if isSilent { return false }
    if !isFirstOperation { bytes.append(UInt8(ascii: ",")) }
    isFirstOperation = false
    return true
  }

  private func writeReplace(_ node: PatchNode, _ value: JSONValue) {
    guard beginOperation() else { return }
    bytes.append(contentsOf: node.replacePrefix)
    value.write(into: &bytes)
    bytes.append(UInt8(ascii: "}"))
  }

  private func writeOperation(
    prefix: StaticString, _ pointer: @autoclosure () -> String, value: JSONValue?
  ) {
    guard beginOperation() else { return }
    prefix.withUTF8Buffer { bytes.append(contentsOf: $0) }
    JSONWriter.writeString(pointer(), into: &bytes)
    if let value {
      bytes.append(contentsOf: #","value":"#.utf8)
      value.write(into: &bytes)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  // MARK: Encoder

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if plain == nil, let (key, container) = node.keyedContainer, key == ObjectIdentifier(Key.self),
      node.members != nil, !node.isArray
    {
      return unsafeBitCast(container, to: KeyedEncodingContainer<Key>.self)
    }
    // A dictionary is diffed whole: it changes by entries, which its JSON diff finds, and its
    // keys are many.
    if plain == nil, !DictionaryKeys.isDictionaryKey(Key.self), node.rememberMembers() {
      let container = KeyedEncodingContainer(PatchKeyedContainer<Key>(walk: self, node: node))
      node.keyedContainer = (
        ObjectIdentifier(Key.self), unsafeBitCast(container, to: AnyObject.self)
      )
      return container
    }
    return plainEncoder().container(keyedBy: type)
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if plain == nil, node.isArray, node.members != nil {
      return PatchUnkeyedContainer(walk: self, node: node)
    }
    return plainEncoder().unkeyedContainer()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    plainEncoder().singleValueContainer()
  }

  private func plainEncoder() -> ValueEncoder {
    if let plain { return plain }
    let encoder = ValueEncoder(basePath: { [node] in node.codingPath })
    plain = encoder
    return encoder
  }
}

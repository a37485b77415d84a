/// Patches the members of a JSON object one at a time, for a host that knows which members
/// changed (a state that lists its members compares them with `==`). Each member is patched as
/// ``JSONPatchEncoder`` patches one: a scalar is one `replace`, a struct is walked, a
/// tracked collection is written from its changes.
///
/// A member's first value is walked when the member is first patched, not when the encoder is
/// made: most members of a new instance's state never change, and walking them all was most of
/// what activating an instance cost. Until then the encoder holds that first value, so the
/// store's first change to a tracked collection copies it once (walking it would encode every
/// element, which costs more); after its first patch nothing of it is kept.
///
/// ```swift
/// let encoder = JSONMemberPatchEncoder(keys: ["count", "todos"], values: [0, todos])
/// var bytes: [UInt8] = [], isFirst = true
/// try encoder.writePatch(member: 0, to: 1, into: &bytes, isFirstOperation: &isFirst)
/// // {"op":"replace","path":"/count","value":1}
/// ```
public final class JSONMemberPatchEncoder {
  private let walk: PatchWalk
  private let members: [PatchNode]
  /// The first values of the members not patched yet (`Released` for the others). Not an
  /// array of optionals: converting a first value of `nil` to one would make it the array's
  /// `nil`, and lose it.
  private var firstValues: [any Encodable]
  /// Whether `firstValues` holds the member's first value.
  private var isPending: [Bool]

  /// Keys are unique.
  public init(keys: [String], values: [any Encodable]) {
    let root = PatchNode(key: "", parent: nil, json: .object(JSONObject()))
    let members = keys.map { PatchNode(key: $0, parent: root, json: .object(JSONObject())) }
    root.members = members
    walk = PatchWalk(root: root)
    self.members = members
    firstValues = values
    isPending = Array(repeating: true, count: values.count)
  }

  /// Takes `values` as the members' values the next patches start from, whatever was patched
  /// before; each is walked when its member is first patched again, from what the member held.
  public func reset(values: [any Encodable]) {
    precondition(values.count == members.count, "one value per member")
    firstValues = values
    for index in isPending.indices { isPending[index] = true }
  }

  /// Appends the operations that bring member `index` to `value`, each after a comma unless
  /// `isFirstOperation`, which is false afterwards if one was written.
  public func writePatch(
    member index: Int, to value: any Encodable, into bytes: inout [UInt8],
    isFirstOperation: inout Bool
  ) throws {
    if isPending[index] {
      let first = firstValues[index]
      try walk.remember(first, at: members[index])
      firstValues[index] = Released()
      isPending[index] = false
    }
    try walk.writePatch(
      of: members[index], to: value, into: &bytes, isFirstOperation: &isFirstOperation)
  }
}

/// What stands for a first value once it was walked: holding it would keep a copy.
private struct Released: Encodable {}

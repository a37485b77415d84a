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

  /// Takes the value of each member as the one the next patches start from, whatever was
  /// patched before; each is walked when its member is first patched again, from what the
  /// member held. (Asked for one at a time, into the array the encoder has: a host reused for
  /// each instance activated would otherwise allocate a new one every time.)
  public func reset(values value: (_ member: Int) -> any Encodable) {
    for index in firstValues.indices {
      firstValues[index] = value(index)
      isPending[index] = true
    }
  }

  /// Appends the operation that brings member `index` to `value`, a scalar, after a comma
  /// unless `isFirstOperation`, as ``writePatch(member:to:into:isFirstOperation:)`` does, and
  /// without generic code. False, with nothing written, before the member's first patch: that
  /// one is to be written by ``writePatch(member:to:into:isFirstOperation:)``.
  public func writeScalarChange(
    member index: Int, to value: JSONValue, into bytes: inout [UInt8], isFirstOperation: inout Bool
  ) -> Bool {
    guard !isPending[index] else { return false }
    walk.writeScalarChange(
      of: members[index], toScalar: value, into: &bytes, isFirstOperation: &isFirstOperation)
    return true
  }

  /// Appends the operations that bring member `index` to `value`, each after a comma unless
  /// `isFirstOperation`, which is false afterwards if one was written.
  public func writePatch<Value: Encodable>(
    member index: Int, to value: Value, into bytes: inout [UInt8], isFirstOperation: inout Bool
  ) throws {
    if !isPending[index],
      walk.writeScalarChange(
        of: members[index], to: value, into: &bytes, isFirstOperation: &isFirstOperation)
    {
      return
    }
    if isPending[index] {
      let first = firstValues[index]
      firstValues[index] = Released()
      isPending[index] = false
      // A scalar's first patch, the commonest (a count, a flag, a text), compares the two
      // values as JSON: walking the first value to remember it cost more than the patch.
      if walk.writeScalarPatch(
        of: members[index], from: first, to: value, into: &bytes,
        isFirstOperation: &isFirstOperation)
      {
        return
      }
      try walk.remember(first, at: members[index])
    }
    try walk.writePatch(
      of: members[index], to: value, into: &bytes, isFirstOperation: &isFirstOperation)
  }
}

/// What stands for a first value once it was walked: holding it would keep a copy.
private struct Released: Encodable {}

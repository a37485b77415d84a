/// Patches the members of a JSON object one at a time, for a host that knows which members
/// changed (a state that lists its members compares them with `==`). Each member is patched as
/// ``JSONPatchEncoder`` patches one: a scalar is one `replace`, a struct is walked, a
/// tracked collection is written from its changes.
///
/// ```swift
/// let encoder = try JSONMemberPatchEncoder(keys: ["count", "todos"], values: [0, todos])
/// var bytes: [UInt8] = [], isFirst = true
/// try encoder.writePatch(member: 0, to: 1, into: &bytes, isFirstOperation: &isFirst)
/// // {"op":"replace","path":"/count","value":1}
/// ```
public final class JSONMemberPatchEncoder {
  private let walk: PatchWalk
  private let members: [PatchNode]

  /// Remembers each member's first value; keys are unique.
  public init(keys: [String], values: [any Encodable]) throws {
    let root = PatchNode(key: "", parent: nil, json: .object(JSONObject()))
    let members = keys.map { PatchNode(key: $0, parent: root, json: .object(JSONObject())) }
    root.members = members
    walk = PatchWalk(root: root)
    self.members = members
    for (member, value) in zip(members, values) { try walk.remember(value, at: member) }
  }

  /// Appends the operations that bring member `index` to `value`, each after a comma unless
  /// `isFirstOperation`, which is false afterwards if one was written.
  public func writePatch(
    member index: Int, to value: any Encodable, into bytes: inout [UInt8],
    isFirstOperation: inout Bool
  ) throws {
    try walk.writePatch(
      of: members[index], to: value, into: &bytes, isFirstOperation: &isFirstOperation)
  }
}

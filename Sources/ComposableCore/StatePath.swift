/// A writable key path into a state that `forEach` and `ifLet` read on every action.
///
/// Reading through a key path (`state[keyPath: path]`) runs the runtime's generic projection:
/// it copies the value out, retaining each reference it holds, and looks up the metadata of a
/// `Result` of the value's type in the runtime's hash table, about 500 instructions a read of an
/// identified array, three reads a `forEach` element action. A path of stored properties is a
/// fixed offset in the state (`MemoryLayout.offset(of:)`), read in place; any other path (a
/// computed property, one with observers) keeps the key path.
struct StatePath<Root, Value>: Sendable {
  let keyPath: WritableKeyPath<Root, Value> & Sendable
  private let offset: Int?

  init(_ keyPath: WritableKeyPath<Root, Value> & Sendable) {
    self.keyPath = keyPath
    offset = MemoryLayout<Root>.offset(of: keyPath)
  }

  /// What `body` finds in the value at the path in `root`, which it does not change (`inout`
  /// only to read the value where it is).
  func read<Found>(in root: inout Root, _ body: (Value) -> Found) -> Found {
    guard let offset else { return body(root[keyPath: keyPath]) }
    return withUnsafeMutablePointer(to: &root) { root in
      body(UnsafeRawPointer(root).advanced(by: offset).assumingMemoryBound(to: Value.self).pointee)
    }
  }
}

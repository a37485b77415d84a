import ComposableCore
import JSON

/// A store's state as the host last saw it, in JSON, and the patches that bring it up to date.
///
/// A state that lists its fields (``FieldwiseEncodable``) is compared field by field, and only
/// the fields that changed are encoded and diffed; any other state is walked by its
/// `encode(to:)` with ``JSONPatchEncoder``, which skips the members whose bits did not change.
/// Both write a patch that turns the last state's encoding into the new one's.
struct StateJSON<State> {
  /// The JSON of the last state, which is given.
  let current: (_ last: State) -> JSONValue
  /// Appends the patch from the last state to this one, as a JSON array, and makes this one
  /// the last state.
  let writePatch: (_ to: State, _ into: inout [UInt8]) -> Void
  /// Makes the given state the last one, for a host given to another instance.
  let reset: (State) -> Void
}

extension StateJSON where State: Encodable {
  /// A snapshot is rare: the state is encoded whole rather than assembled from what the patch
  /// encoder remembers, which keeps no JSON for what it skips.
  private static func encodingWhole(store: String) -> (State) -> JSONValue {
    { last in encode(store: store) { try JSONValueEncoder().encode(last) } }
  }

  static func memberwise(_ initial: State, store: String) -> Self {
    let encoder = encode(store: store) { try JSONPatchEncoder(initial) }
    return StateJSON(
      current: encodingWhole(store: store),
      writePatch: { state, bytes in
        encode(store: store) { try encoder.writePatch(to: state, into: &bytes) }
      },
      reset: { state in encode(store: store) { try encoder.reset(to: state) } })
  }
}

extension StateJSON where State: FieldwiseEncodable {
  static func fieldwise(_ initial: State, store: String) -> Self {
    fieldwise(initial, store: store, tracking: State.FieldTracker.self)
  }

  /// With a tracker other than the state's own: the tests compare the two.
  static func fieldwise<Tracker: FieldChangeTracker<State>>(
    _ initial: State, store: String, tracking: Tracker.Type
  ) -> Self {
    let tracker = FieldwiseTracker<State, Tracker>(initial, store: store)
    return StateJSON(
      current: encodingWhole(store: store), writePatch: tracker.writePatch(to:into:),
      reset: tracker.reset(to:))
  }
}

private final class FieldwiseTracker<State: FieldwiseEncodable, Tracker: FieldChangeTracker<State>>
{
  let store: String
  let fields = State.encodedFields
  /// Which members changed since the last state.
  var tracker: Tracker
  /// The fields' JSON as last written, patched one field at a time.
  let members: JSONMemberPatchEncoder

  init(_ initial: State, store: String) {
    self.store = store
    let fields = fields
    tracker = Tracker(initial)
    members = JSONMemberPatchEncoder(
      keys: fields.map(\.key), values: fields.map { $0.value(initial) })
  }

  func reset(to state: State) {
    tracker = Tracker(state)
    members.reset { fields[$0].value(state) }
  }

  func writePatch(to new: State, into bytes: inout [UInt8]) {
    var sink = MemberPatchSink(members: members, store: store)
    swap(&sink.bytes, &bytes)
    defer { swap(&sink.bytes, &bytes) }
    sink.bytes.append(UInt8(ascii: "["))
    tracker.reportChanges(to: new, into: &sink)
    sink.bytes.append(UInt8(ascii: "]"))
  }
}

/// Writes each changed member's operations into the patch being written.
private struct MemberPatchSink: FieldChangeSink {
  let members: JSONMemberPatchEncoder
  let store: String
  var bytes: [UInt8] = []
  var isFirstOperation = true

  mutating func member<Value: Encodable>(_ index: Int, changedTo value: Value) {
    encode(store: store) {
      try members.writePatch(
        member: index, to: value, into: &bytes, isFirstOperation: &isFirstOperation)
    }
  }

  mutating func member(_ index: Int, changedTo value: Int) {
    writeScalar(index, .int(value), value)
  }

  mutating func member(_ index: Int, changedTo value: Bool) {
    writeScalar(index, .bool(value), value)
  }

  mutating func member(_ index: Int, changedTo value: String) {
    writeScalar(index, .string(value), value)
  }

  private mutating func writeScalar(_ index: Int, _ json: JSONValue, _ value: some Encodable) {
    if !members.writeScalarChange(
      member: index, to: json, into: &bytes, isFirstOperation: &isFirstOperation)
    {
      member(index, changedTo: value)
    }
  }
}

private func encode<T>(store: String, _ body: () throws -> T) -> T {
  do {
    return try body()
  } catch {
    // States are plain data; failing to encode one is a bug in the feature, not bad input.
    preconditionFailure("\(store): cannot encode the state: \(error)")
  }
}

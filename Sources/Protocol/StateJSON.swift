import ComposableCore
import JSON

/// A store's state as the host last saw it, in JSON, and the patches that bring it up to date.
///
/// A state that lists its fields (``FieldwiseEncodable``) is compared field by field, and only
/// the fields that changed are encoded and diffed; any other state is encoded whole and
/// diffed. Both give the patch `JSONPatch.diff` makes from the two states' encodings.
struct StateJSON<State> {
  /// The JSON of the last state.
  let current: () -> JSONValue
  /// The patch from the last state to this one, which becomes the last state.
  let update: (State) -> [JSONPatchOperation]
}

extension StateJSON where State: Encodable {
  static func encodingWholeState(_ initial: State, store: String) -> Self {
    let tracker = WholeStateTracker(initial, store: store)
    return StateJSON(current: { tracker.json }, update: tracker.update(to:))
  }
}

extension StateJSON where State: FieldwiseEncodable {
  static func fieldwise(_ initial: State, store: String) -> Self {
    let tracker = FieldwiseTracker(initial, store: store)
    return StateJSON(current: tracker.json, update: tracker.update(to:))
  }
}

private final class WholeStateTracker<State: Encodable> {
  let store: String
  var json: JSONValue

  init(_ initial: State, store: String) {
    self.store = store
    self.json = encode(initial, store: store)
  }

  func update(to state: State) -> [JSONPatchOperation] {
    let new = encode(state, store: store)
    defer { json = new }
    return JSONPatch.diff(from: json, to: new)
  }
}

private final class FieldwiseTracker<State: FieldwiseEncodable> {
  let store: String
  let fields = State.encodedFields
  /// Each field's JSON Pointer text, `/key`.
  let pointers: [String]
  var state: State
  /// Each field's JSON in `state`, in field order.
  var members: [JSONValue]

  init(_ initial: State, store: String) {
    self.store = store
    self.state = initial
    self.pointers = fields.map { "/" + JSONPointer.escape($0.key) }
    self.members = fields.map { encode($0.value(initial), store: store) }
  }

  func json() -> JSONValue {
    .object(JSONObject(zip(fields, members).map { ($0.key, $1) }))
  }

  func update(to new: State) -> [JSONPatchOperation] {
    // Locals: reading a stored property of a class in the loop would copy the whole state
    // each time, as the closures could in principle change it.
    let old = state
    let fields = fields
    var operations: [JSONPatchOperation] = []
    for index in fields.indices where fields[index].differs(old, new) {
      let member = encode(fields[index].value(new), store: store)
      JSONPatch.diff(from: members[index], to: member, at: pointers[index], into: &operations)
      members[index] = member
    }
    state = new
    return operations
  }
}

private func encode(_ value: some Encodable, store: String) -> JSONValue {
  do {
    return try JSONValueEncoder().encode(value)
  } catch {
    // States are plain data; failing to encode one is a bug in the feature, not bad input.
    preconditionFailure("\(store): cannot encode the state: \(error)")
  }
}

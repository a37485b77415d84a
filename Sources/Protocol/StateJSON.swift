import ComposableCore
import JSON

/// A store's state as the host last saw it, in JSON, and the patches that bring it up to date.
///
/// A state that lists its fields (``FieldwiseEncodable``) is compared field by field, and only
/// the fields that changed are encoded and diffed; any other state is walked by its
/// `encode(to:)` with ``JSONPatchEncoder``, which skips the members whose bits did not change.
/// Both write the patch `JSONPatch.diff` makes from the two states' encodings.
struct StateJSON<State> {
  /// The JSON of the last state, which is given.
  let current: (_ last: State) -> JSONValue
  /// Appends the patch from the last state to this one, as a JSON array, and makes this one
  /// the last state.
  let writePatch: (_ to: State, _ into: inout [UInt8]) -> Void
}

extension StateJSON where State: Encodable {
  static func memberwise(_ initial: State, store: String) -> Self {
    let encoder = encode(store: store) { try JSONPatchEncoder(initial) }
    return StateJSON(
      current: { last in encode(store: store) { try JSONValueEncoder().encode(last) } },
      writePatch: { state, bytes in
        encode(store: store) { try encoder.writePatch(to: state, into: &bytes) }
      })
  }
}

extension StateJSON where State: FieldwiseEncodable {
  static func fieldwise(_ initial: State, store: String) -> Self {
    let tracker = FieldwiseTracker(initial, store: store)
    return StateJSON(current: { _ in tracker.json() }, writePatch: tracker.writePatch(to:into:))
  }
}

private final class FieldwiseTracker<State: FieldwiseEncodable> {
  let store: String
  let fields = State.encodedFields
  /// Each field's JSON Pointer text, `/key`.
  let pointers: [String]
  /// Each field's replace operation up to its value, `{"op":"replace","path":"/key","value":`:
  /// a changed scalar member is written as that, its value, and `}`.
  let replacePrefixes: [[UInt8]]
  var state: State
  /// Each field's JSON in `state`, in field order.
  var members: [JSONValue]

  init(_ initial: State, store: String) {
    self.store = store
    self.state = initial
    self.pointers = fields.map { "/" + JSONPointer.escape($0.key) }
    self.replacePrefixes = pointers.map { pointer in
      var prefix = Array(#"{"op":"replace","path":"#.utf8)
      JSONWriter.writeString(pointer, into: &prefix)
      prefix.append(contentsOf: #","value":"#.utf8)
      return prefix
    }
    self.members = fields.map { field in
      encode(store: store) { try JSONValueEncoder().encode(field.value(initial)) }
    }
  }

  func json() -> JSONValue {
    .object(JSONObject(zip(fields, members).map { ($0.key, $1) }))
  }

  func writePatch(to new: State, into bytes: inout [UInt8]) {
    // Swapped rather than copied: `old` takes the last state without retaining its members
    // again. Locals, too: reading a stored property of a class in the loop would copy the
    // whole state each time, as the closures could in principle change it.
    var old = new
    swap(&old, &state)
    let fields = fields
    var isFirst = true
    var operations: [JSONPatchOperation] = []
    bytes.append(UInt8(ascii: "["))
    for index in fields.indices where fields[index].differs(old, new) {
      let member = encode(store: store) { try JSONValueEncoder().encode(fields[index].value(new)) }
      let previous = members[index]
      members[index] = member
      switch (previous, member) {
      case (.array, .array), (.object, .object):
        // Containers of the same kind: the differ finds the elements or members that changed.
        operations.removeAll(keepingCapacity: true)
        JSONPatch.diff(from: previous, to: member, at: pointers[index], into: &operations)
        for operation in operations {
          if !isFirst { bytes.append(UInt8(ascii: ",")) }
          isFirst = false
          operation.write(into: &bytes)
        }
      default:
        // Anything else is replaced whole when its JSON changed, as the differ would.
        guard previous != member else { continue }
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        bytes.append(contentsOf: replacePrefixes[index])
        member.write(into: &bytes)
        bytes.append(UInt8(ascii: "}"))
      }
    }
    bytes.append(UInt8(ascii: "]"))
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

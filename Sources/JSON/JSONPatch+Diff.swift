extension JSONPatch {
  /// A patch that turns `old` into `new`, made of `add`, `remove` and `replace` only.
  ///
  /// Always correct: `apply(diff(from: a, to: b), to: a) == b`. Minimal for the changes state
  /// goes through after one action:
  /// - equal values give `[]`;
  /// - a changed scalar, or a value whose type changed, is one `replace` at its path;
  /// - a new object key is one `add`, a removed one is one `remove`;
  /// - in an array, the elements between the common prefix and suffix are matched: by their `id`
  ///   member when every one has a distinct one (as an identified collection's elements do), or
  ///   else by a shortest edit script, searched within a budget of comparisons linear in the
  ///   length. Matched elements that changed are diffed in place, the others removed or added,
  ///   so that appending is one `add`, inserting or removing anywhere one op, dropping the first
  ///   element of a full list and appending another a `remove` and an `add`, and a move a
  ///   `remove` and an `add`. Past the budget, elements are compared pairwise and the surplus
  ///   removed or added: still correct, but maybe longer than the shortest patch.
  ///
  /// Cost: linear in the sizes of the two values, and O(n log n) for identified elements that
  /// moved.
  public static func diff(from old: JSONValue, to new: JSONValue) -> [JSONPatchOperation] {
    var operations: [JSONPatchOperation] = []
    diff(from: old, to: new, at: "", into: &operations)
    return operations
  }

  /// Appends to `operations` the patch that turns the value at `pointer` (a JSON Pointer text)
  /// from `old` into `new`: for diffing one member of a larger document.
  public static func diff(
    from old: JSONValue, to new: JSONValue, at pointer: String,
    into operations: inout [JSONPatchOperation]
  ) {
    diff(from: old, to: new, at: pointer, element: nil, into: &operations)
  }

  /// The same for element `element` of the array at `pointer` when it is given, without
  /// building the element's pointer text unless an operation needs it.
  static func diff(
    from old: JSONValue, to new: JSONValue, at pointer: String, element: Int?,
    into operations: inout [JSONPatchOperation]
  ) {
    // The differ appends to the caller's array itself: swapping it in and out avoids a copy.
    var differ = Differ(base: pointer, operations: [])
    swap(&differ.operations, &operations)
    if let element {
      differ.compare(old, new, at: .index(element))
    } else {
      differ.compare(old, new)
    }
    swap(&differ.operations, &operations)
  }
}

/// The walk behind ``JSONPatch/diff(from:to:)``; arrays are in `JSONPatch+ArrayDiff.swift`.
///
/// The pointer text of the current value is kept as bytes, a token appended on the way down
/// and cut on the way up, and made a `String` only when an operation is emitted: the unchanged
/// parts of a document cost no string building, and the changed ones no rebuilding of the
/// path from its root for each operation.
struct Differ {
  enum Token {
    case key(String)
    case index(Int)
  }

  /// The pointer text of the current value: the base, then one token per level descended.
  private var pointerText: [UInt8]
  var operations: [JSONPatchOperation]

  init(base: String, operations: [JSONPatchOperation]) {
    // Room for a few tokens: appending the first to an array of the base's exact size would
    // copy it.
    pointerText = []
    pointerText.reserveCapacity(base.utf8.count + 32)
    pointerText.append(contentsOf: base.utf8)
    self.operations = operations
  }

  mutating func compare(_ old: JSONValue, _ new: JSONValue) {
    switch (old, new) {
    case (.object(let old), .object(let new)):
      compareObjects(old, new)
    case (.array(let old), .array(let new)):
      compareArrays(old, new)
    default:
      if old != new {
        let path = pointer()
        operations.append(.replace(path: path, value: new))
      }
    }
  }

  /// Compares the values one level down, at `token`.
  mutating func compare(_ old: JSONValue, _ new: JSONValue, at token: Token) {
    let depth = pointerText.count
    Self.append(token, to: &pointerText)
    compare(old, new)
    pointerText.removeSubrange(depth...)
  }

  private mutating func compareObjects(_ old: JSONObject, _ new: JSONObject) {
    var kept = 0
    for position in old.entries.indices {
      let key = old.entries[position].key
      if let newPosition = new.index(forKey: key, hint: position) {
        kept += 1
        // Most members are unchanged: compare before paying for the path.
        if old.entries[position].value != new.entries[newPosition].value {
          compare(old.entries[position].value, new.entries[newPosition].value, at: .key(key))
        }
      } else {
        let path = pointer(appending: .key(key))
        operations.append(.remove(path: path))
      }
    }
    guard kept < new.count else { return }
    for position in new.entries.indices {
      let key = new.entries[position].key
      if old.index(forKey: key, hint: position) == nil {
        let path = pointer(appending: .key(key))
        operations.append(.add(path: path, value: new.entries[position].value))
      }
    }
  }

  /// The pointer text of the current value, optionally one token deeper.
  mutating func pointer(appending last: Token? = nil) -> String {
    guard let last else { return String(decoding: pointerText, as: UTF8.self) }
    let depth = pointerText.count
    Self.append(last, to: &pointerText)
    defer { pointerText.removeSubrange(depth...) }
    return String(decoding: pointerText, as: UTF8.self)
  }

  /// Appends `/` and the token, escaped as RFC 6901 has it (`~` as `~0`, `/` as `~1`).
  private static func append(_ token: Token, to text: inout [UInt8]) {
    text.append(UInt8(ascii: "/"))
    switch token {
    case .key(let key):
      // Most keys need no escape: their bytes go in at once rather than one at a time.
      let needsNoEscape = key.utf8.withContiguousStorageIfAvailable { bytes in
        !bytes.contains { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }
      }
      if needsNoEscape == true {
        text.append(contentsOf: key.utf8)
        return
      }
      for byte in key.utf8 {
        switch byte {
        case UInt8(ascii: "~"): text.append(contentsOf: "~0".utf8)
        case UInt8(ascii: "/"): text.append(contentsOf: "~1".utf8)
        default: text.append(byte)
        }
      }
    case .index(let index):
      JSONWriter.writeInt(index, into: &text)
    }
  }
}

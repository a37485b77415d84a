extension JSONPatch {
  /// Applies the operations in order, as RFC 6902 specifies, and returns the patched document.
  ///
  /// The first failing operation stops the patch; the error carries its position. The input is
  /// never modified, so a failed patch leaves nothing half applied.
  public static func apply(
    _ patch: [JSONPatchOperation], to document: JSONValue
  ) throws(JSONPatchError) -> JSONValue {
    var document = document
    for (index, operation) in patch.enumerated() {
      do throws(JSONPatchError) {
        try document.apply(operation)
      } catch {
        var error = error
        error.operationIndex = index
        throw error
      }
    }
    return document
  }
}

extension JSONValue {
  fileprivate mutating func apply(_ operation: JSONPatchOperation) throws(JSONPatchError) {
    switch operation {
    case .add(let path, let value):
      try add(value, at: pointer(path))
    case .remove(let path):
      _ = try remove(at: pointer(path))
    case .replace(let path, let value):
      try modifyValue(at: pointer(path)) { $0 = value }
    case .move(let from, let path):
      let source = try pointer(from)
      let target = try pointer(path)
      guard !target.isStrictlyInside(source) else {
        throw JSONPatchError(
          .invalidOperation, "cannot move \(source) into its own child \(target)")
      }
      try add(try remove(at: source), at: target)
    case .copy(let from, let path):
      let target = try pointer(path)
      try add(try resolve(pointer(from)), at: target)
    case .test(let path, let expected):
      let pointer = try pointer(path)
      let actual = try resolve(pointer)
      guard actual == expected else {
        throw JSONPatchError(
          .testFailed,
          "test at \"\(pointer)\" expected \(expected.briefDescription), found \(actual.briefDescription)"
        )
      }
    }
  }

  private func pointer(_ text: String) throws(JSONPatchError) -> JSONPointer {
    do throws(JSONPointerError) {
      return try JSONPointer(text)
    } catch {
      throw JSONPatchError(.invalidPointer, error.message)
    }
  }

  func resolve(_ pointer: JSONPointer) throws(JSONPatchError) -> JSONValue {
    var current = self
    for (depth, token) in pointer.tokens.enumerated() {
      current = try current.child(token, of: pointer, depth: depth)
    }
    return current
  }

  /// Inserts into an object (replacing an existing member) or an array (`-` appends).
  private mutating func add(_ value: JSONValue, at pointer: JSONPointer) throws(JSONPatchError) {
    guard let last = pointer.tokens.last else {
      self = value
      return
    }
    try modifyValue(at: pointer.tokens.dropLast(), of: pointer) { (parent) throws(JSONPatchError) in
      switch parent {
      case .object(var object):
        parent = .null
        object[last] = value
        parent = .object(object)
      case .array(var array):
        let index =
          last == "-"
          ? array.count : try Self.arrayIndex(last, count: array.count + 1, of: pointer)
        parent = .null
        array.insert(value, at: index)
        parent = .array(array)
      default:
        throw JSONPatchError(.pathNotFound, "no container at the parent of \"\(pointer)\"")
      }
    }
  }

  /// Removes a member or element that must exist; the root cannot be removed.
  private mutating func remove(at pointer: JSONPointer) throws(JSONPatchError) -> JSONValue {
    guard let last = pointer.tokens.last else {
      throw JSONPatchError(.invalidOperation, "cannot remove the whole document")
    }
    var removed = JSONValue.null
    try modifyValue(at: pointer.tokens.dropLast(), of: pointer) { (parent) throws(JSONPatchError) in
      switch parent {
      case .object(var object):
        parent = .null
        defer { parent = .object(object) }
        guard let value = object.removeValue(forKey: last) else {
          throw JSONPatchError(.pathNotFound, "no value at \"\(pointer)\"")
        }
        removed = value
      case .array(var array):
        let index = try Self.arrayIndex(last, count: array.count, of: pointer)
        parent = .null
        removed = array.remove(at: index)
        parent = .array(array)
      default:
        throw JSONPatchError(.pathNotFound, "no value at \"\(pointer)\"")
      }
    }
    return removed
  }

  private mutating func modifyValue(
    at pointer: JSONPointer, _ body: (inout JSONValue) throws(JSONPatchError) -> Void
  ) throws(JSONPatchError) {
    try modifyValue(at: pointer.tokens[...], of: pointer, body)
  }

  /// Runs `body` on the value at `tokens`, which must exist, editing it in place.
  ///
  /// Each level moves its container out of `self` before descending, so the nested value is
  /// uniquely referenced and the edit does not copy the document.
  private mutating func modifyValue(
    at tokens: ArraySlice<String>, of pointer: JSONPointer,
    _ body: (inout JSONValue) throws(JSONPatchError) -> Void
  ) throws(JSONPatchError) {
    guard let token = tokens.first else {
      try body(&self)
      return
    }
    let depth = tokens.startIndex
    switch self {
    case .object(var object):
      guard let position = object.index(forKey: token) else {
        throw JSONPatchError(
          .pathNotFound, "no value at \"\(JSONPointer(tokens: Array(pointer.tokens[...depth])))\"")
      }
      self = .null
      defer { self = .object(object) }
      try object[valueAt: position].modifyValue(at: tokens.dropFirst(), of: pointer, body)
    case .array(var array):
      let index = try Self.arrayIndex(token, count: array.count, of: pointer)
      self = .null
      defer { self = .array(array) }
      try array[index].modifyValue(at: tokens.dropFirst(), of: pointer, body)
    default:
      throw JSONPatchError(
        .pathNotFound, "no value at \"\(JSONPointer(tokens: Array(pointer.tokens[...depth])))\"")
    }
  }

  private func child(_ token: String, of pointer: JSONPointer, depth: Int) throws(JSONPatchError)
    -> JSONValue
  {
    switch self {
    case .object(let object):
      if let value = object[token] {
        return value
      }
    case .array(let array):
      return array[try Self.arrayIndex(token, count: array.count, of: pointer)]
    default:
      break
    }
    throw JSONPatchError(
      .pathNotFound, "no value at \"\(JSONPointer(tokens: Array(pointer.tokens[...depth])))\"")
  }

  /// Reads an array index token: decimal digits without leading zeros, below `count`.
  private static func arrayIndex(_ token: String, count: Int, of pointer: JSONPointer)
    throws(JSONPatchError) -> Int
  {
    let digits = token.utf8
    guard !digits.isEmpty, digits.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
      digits.first != UInt8(ascii: "0") || digits.count == 1
    else {
      throw JSONPatchError(.pathNotFound, "\"\(token)\" in \"\(pointer)\" is not an array index")
    }
    guard let index = Int(token), index < count else {
      throw JSONPatchError(.pathNotFound, "index \(token) in \"\(pointer)\" is out of bounds")
    }
    return index
  }
}

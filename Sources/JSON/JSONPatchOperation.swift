/// One operation of an RFC 6902 JSON Patch. Paths are JSON Pointer texts (``JSONPointer``).
@_spi(Hosting)
public enum JSONPatchOperation: Sendable, Hashable {
  case add(path: String, value: JSONValue)
  case remove(path: String)
  case replace(path: String, value: JSONValue)
  case move(from: String, path: String)
  case copy(from: String, path: String)
  case test(path: String, value: JSONValue)

  /// The `op` member.
  public var name: String {
    switch self {
    case .add: "add"
    case .remove: "remove"
    case .replace: "replace"
    case .move: "move"
    case .copy: "copy"
    case .test: "test"
    }
  }

  /// The `path` member.
  public var path: String {
    switch self {
    case .add(let path, _), .remove(let path), .replace(let path, _), .move(_, let path),
      .copy(_, let path), .test(let path, _):
      path
    }
  }

  /// The `from` member of `move` and `copy`.
  public var from: String? {
    switch self {
    case .move(let from, _), .copy(let from, _): from
    default: nil
    }
  }

  /// The `value` member of `add`, `replace` and `test`.
  public var value: JSONValue? {
    switch self {
    case .add(_, let value), .replace(_, let value), .test(_, let value): value
    default: nil
    }
  }

  /// The operation as a JSON object with members in the order `op`, `from`, `path`, `value`.
  public var jsonValue: JSONValue {
    var object = JSONObject()
    object.reserveCapacity(3)
    object.appendNewKey("op", .string(name))
    if let from {
      object.appendNewKey("from", .string(from))
    }
    object.appendNewKey("path", .string(path))
    if let value {
      object.appendNewKey("value", value)
    }
    return .object(object)
  }

  /// Appends the JSON text of ``jsonValue`` without building it.
  public func write(into buffer: inout [UInt8]) {
    // Static text up to the path, appended as one buffer: a patch of a book is dozens of
    // operations, and appending a `String`'s bytes goes through its generic view.
    let opening: StaticString
    switch self {
    case .add: opening = #"{"op":"add","path":"#
    case .remove: opening = #"{"op":"remove","path":"#
    case .replace: opening = #"{"op":"replace","path":"#
    case .move: opening = #"{"op":"move","from":"#
    case .copy: opening = #"{"op":"copy","from":"#
    case .test: opening = #"{"op":"test","path":"#
    }
    opening.withUTF8Buffer { buffer.append(contentsOf: $0) }
    if let from {
      JSONWriter.writeString(from, into: &buffer)
      append(#","path":"#, to: &buffer)
    }
    JSONWriter.writeString(path, into: &buffer)
    if let value {
      append(#","value":"#, to: &buffer)
      value.write(into: &buffer)
    }
    buffer.append(UInt8(ascii: "}"))
  }

  private func append(_ text: StaticString, to buffer: inout [UInt8]) {
    text.withUTF8Buffer { buffer.append(contentsOf: $0) }
  }

  /// Reads an operation object. As RFC 6902 requires, members that the operation does not
  /// use are ignored; a missing required member or an unknown `op` is an error.
  public init(json: JSONValue) throws(JSONPatchError) {
    guard case .object(let object) = json else {
      throw JSONPatchError(
        .invalidOperation, "an operation must be an object, got \(json.briefDescription)")
    }
    func string(_ member: String) throws(JSONPatchError) -> String {
      guard let value = object[member] else {
        throw JSONPatchError(.invalidOperation, "operation has no \"\(member)\"")
      }
      guard case .string(let string) = value else {
        throw JSONPatchError(
          .invalidOperation, "\"\(member)\" must be a string, got \(value.briefDescription)")
      }
      return string
    }
    func value() throws(JSONPatchError) -> JSONValue {
      guard let value = object["value"] else {
        throw JSONPatchError(.invalidOperation, "operation has no \"value\"")
      }
      return value
    }
    switch try string("op") {
    case "add": self = .add(path: try string("path"), value: try value())
    case "remove": self = .remove(path: try string("path"))
    case "replace": self = .replace(path: try string("path"), value: try value())
    case "move": self = .move(from: try string("from"), path: try string("path"))
    case "copy": self = .copy(from: try string("from"), path: try string("path"))
    case "test": self = .test(path: try string("path"), value: try value())
    case let other: throw JSONPatchError(.invalidOperation, "unknown op \"\(other)\"")
    }
  }
}

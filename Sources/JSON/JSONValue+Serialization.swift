/// Compact JSON text: no whitespace, object keys in insertion order.
extension JSONValue {
  /// Appends the JSON text of this value to `buffer`.
  public func write(into buffer: inout [UInt8]) {
    switch self {
    case .null:
      buffer.append(contentsOf: "null".utf8)
    case .bool(let value):
      buffer.append(contentsOf: value ? "true".utf8 : "false".utf8)
    case .int(let value):
      JSONWriter.writeInt(value, into: &buffer)
    case .number(let value):
      JSONWriter.writeDouble(value, into: &buffer)
    case .string(let value):
      JSONWriter.writeString(value, into: &buffer)
    case .array(let elements):
      buffer.append(UInt8(ascii: "["))
      for (position, element) in elements.enumerated() {
        if position > 0 {
          buffer.append(UInt8(ascii: ","))
        }
        element.write(into: &buffer)
      }
      buffer.append(UInt8(ascii: "]"))
    case .object(let object):
      object.write(into: &buffer)
    }
  }

  /// The JSON text as UTF-8 bytes.
  public var serialized: [UInt8] {
    var buffer: [UInt8] = []
    write(into: &buffer)
    return buffer
  }

  /// The JSON text.
  public var jsonString: String {
    String(decoding: serialized, as: UTF8.self)
  }
}

extension JSONObject {
  /// Appends the JSON text of this object to `buffer`.
  public func write(into buffer: inout [UInt8]) {
    buffer.append(UInt8(ascii: "{"))
    for index in entries.indices {
      JSONWriter.writeKey(entries[index].key, isFirst: index == 0, into: &buffer)
      entries[index].value.write(into: &buffer)
    }
    buffer.append(UInt8(ascii: "}"))
  }
}

extension JSONValue {
  /// Characters of a string quoted by ``excerpt``.
  public static let excerptCharacters = 40

  /// The value as an error message quotes it: scalars as JSON text, a string cut after
  /// ``excerptCharacters`` characters (`"abc…"`), an array or object by its size. A value read
  /// from a file or a peer can be of any size; a message quoting it whole could be as large.
  public var excerpt: String {
    switch self {
    case .string(let text) where text.count > Self.excerptCharacters:
      let cut = JSONValue.string(String(text.prefix(Self.excerptCharacters))).jsonString
      return "\(cut.dropLast())…\" (\(text.utf8.count) bytes)"
    case .array(let elements):
      return "an array of \(elements.count) element\(elements.count == 1 ? "" : "s")"
    case .object(let object):
      return "an object of \(object.count) member\(object.count == 1 ? "" : "s")"
    default:
      return jsonString
    }
  }
}

extension JSONValue {
  /// The value as error messages quote it: scalars in full (long strings cut short), containers
  /// by kind, so that a message stays one short line whatever the input was.
  public var briefDescription: String {
    switch self {
    case .null, .bool, .int, .number:
      return jsonString
    case .string(let string):
      guard string.count > 40 else { return jsonString }
      return JSONValue.string(String(string.prefix(37)) + "...").jsonString
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}

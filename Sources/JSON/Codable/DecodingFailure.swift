/// The `DecodingError`s of ``JSONValueDecoder``.
///
/// Each message names the JSON Pointer of the failing value first (`/items/2/id: expected an
/// integer, got "x"`), because a person reading it has the JSON in front of them, not the Swift
/// types. The pointer is left out for the root value.
enum DecodingFailure {
  static func context(_ path: [any CodingKey], _ problem: String) -> DecodingError.Context {
    let pointer = JSONPointer(codingPath: path)
    return DecodingError.Context(
      codingPath: path, debugDescription: pointer.isRoot ? problem : "\(pointer): \(problem)")
  }

  /// `found` is not the kind of value `type` reads; null is reported as a missing value.
  static func mismatch(
    _ type: Any.Type, expected: String, found: JSONValue, allowsNull: Bool, path: [any CodingKey]
  ) -> DecodingError {
    let expectation = allowsNull ? "\(expected) or null" : expected
    let context = context(path, "expected \(expectation), got \(found.briefDescription)")
    if case .null = found {
      return .valueNotFound(type, context)
    }
    return .typeMismatch(type, context)
  }

  static func outOfRange(_ type: Any.Type, found: JSONValue, path: [any CodingKey]) -> DecodingError
  {
    .dataCorrupted(context(path, "number out of range for \(type): \(found.briefDescription)"))
  }

  static func missingKey(_ key: any CodingKey, path: [any CodingKey]) -> DecodingError {
    .keyNotFound(key, context(path, "missing key \"\(key.stringValue)\""))
  }
}

extension DecodingError {
  /// The message of the error's context, where ``JSONValueDecoder`` names the JSON Pointer of
  /// the failing value.
  public var contextMessage: String {
    switch self {
    case .typeMismatch(_, let context), .valueNotFound(_, let context),
      .keyNotFound(_, let context), .dataCorrupted(let context):
      context.debugDescription
    @unknown default:
      "\(self)"
    }
  }
}

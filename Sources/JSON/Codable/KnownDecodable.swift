/// Types decoded without running their `init(from:)`: the counterpart of `KnownEncodable`.
enum KnownDecodable {
  static func decode<T: Decodable>(
    _ type: T.Type, from value: JSONValue, allowsNull: Bool, path: [any CodingKey]
  ) throws -> T? {
    if T.self == JSONValue.self { return unsafeBitCast(value, to: T.self) }
    if T.self == String.self {
      return unsafeBitCast(
        try ScalarDecoding.string(from: value, allowsNull: allowsNull, path: path), to: T.self)
    }
    if T.self == Int.self {
      return unsafeBitCast(
        try ScalarDecoding.integer(Int.self, from: value, allowsNull: allowsNull, path: path),
        to: T.self)
    }
    if T.self == Bool.self {
      return unsafeBitCast(
        try ScalarDecoding.bool(from: value, allowsNull: allowsNull, path: path), to: T.self)
    }
    if T.self == Double.self {
      return unsafeBitCast(
        try ScalarDecoding.double(from: value, allowsNull: allowsNull, path: path), to: T.self)
    }
    if T.self == [Int].self {
      return unsafeBitCast(
        try elements(of: value, allowsNull: allowsNull, path: path) { element, elementPath in
          try ScalarDecoding.integer(
            Int.self, from: element, allowsNull: false, path: elementPath())
        }, to: T.self)
    }
    if T.self == [String].self {
      return unsafeBitCast(
        try elements(of: value, allowsNull: allowsNull, path: path) { element, elementPath in
          try ScalarDecoding.string(from: element, allowsNull: false, path: elementPath())
        }, to: T.self)
    }
    return nil
  }

  /// Whether `decode` reads `type`: a reader that has no `JSONValue` at hand makes one only then.
  static func reads<T>(_ type: T.Type) -> Bool {
    T.self == JSONValue.self || T.self == String.self || T.self == Int.self || T.self == Bool.self
      || T.self == Double.self || T.self == [Int].self || T.self == [String].self
  }

  /// The elements of an array value, each converted by `convert`.
  private static func elements<Element>(
    of value: JSONValue, allowsNull: Bool, path: [any CodingKey],
    _ convert: (JSONValue, @autoclosure () -> [any CodingKey]) throws -> Element
  ) throws -> [Element] {
    guard case .array(let array) = value else {
      throw DecodingFailure.mismatch(
        [Element].self, expected: "an array", found: value, allowsNull: allowsNull, path: path)
    }
    var result: [Element] = []
    result.reserveCapacity(array.count)
    for (index, element) in array.enumerated() {
      result.append(try convert(element, path + [JSONKey(intValue: index)]))
    }
    return result
  }
}

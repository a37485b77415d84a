/// Encodes `Encodable` values into a ``JSONValue`` tree, ready to diff or serialize.
///
/// The shape is the one `JSONEncoder` produces, with three choices made for state snapshots:
/// - a nil optional is written as an explicit `null` (synthesized code calls
///   `encodeIfPresent`, whose default implementation would drop the key), so every state field
///   is always present;
/// - a non-finite `Double` or `Float` becomes `null`, as in JavaScript, since JSON has no NaN
///   or infinity;
/// - dictionaries are written with sorted keys (numerically for `Int` keys), because their
///   iteration order changes from one process to the next;
/// - an unsigned integer above `Int.max` is an `EncodingError`, not a rounded double.
///
/// A value that writes nothing at all encodes as `{}`.
public struct JSONValueEncoder: Sendable {
  public init() {}

  public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
    if let known = KnownEncodable.encode(value) { return known }
    return try ValueEncoder(codingPath: []).encodeCurrent(value)
  }
}

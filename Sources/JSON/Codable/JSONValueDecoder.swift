/// Decodes `Decodable` values from a ``JSONValue`` tree, strictly.
///
/// - Integers of every width read only integral numbers that fit ("number out of range for
///   Int8: 300"; "expected an integer, got 1.5"); `Double` and `Float` read any number; `Bool`
///   reads only booleans and `String` only strings: no coercion.
/// - A missing key is `keyNotFound`, a `null` where a value is required is `valueNotFound`.
/// - Every message starts with the JSON Pointer of the failing value, and says "or null" where
///   null would have been accepted.
public struct JSONValueDecoder: Sendable {
  public init() {}

  public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
    if let known = try KnownDecodable.decode(T.self, from: value, allowsNull: false, path: []) {
      return known
    }
    if let optional = T.self as? any OptionalDecodable.Type {
      return try optional.decodeOptional(from: value) as! T
    }
    return try ValueDecoder(value: value, allowsNull: false).decodeCurrent(T.self)
  }
}

/// `Optional` at the root of a decode: null is `nil`, and a wrong value's message says what was
/// expected "or null".
protocol OptionalDecodable {
  static func decodeOptional(from value: JSONValue) throws -> Self
  static func decodeOptional(from decoder: BytesDecoder) throws -> Self
}

extension Optional: OptionalDecodable where Wrapped: Decodable {
  static func decodeOptional(from value: JSONValue) throws -> Self {
    if value.isNull {
      return nil
    }
    return try ValueDecoder(value: value, allowsNull: true).decodeCurrent(Wrapped.self)
  }

  static func decodeOptional(from decoder: BytesDecoder) throws -> Self {
    if decoder.map.kind(decoder.current) == .null {
      return nil
    }
    decoder.allowsNull = true
    return try decoder.decodeCurrent(Wrapped.self)
  }
}

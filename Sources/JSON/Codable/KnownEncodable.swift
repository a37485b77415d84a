/// Types encoded without running their `encode(to:)`.
///
/// Arrays of scalars are common in state (`favoritePrimes: [Int]`); going through the generic
/// machinery would cost a container per array and a dynamic dispatch per element. The checks
/// compare type metadata pointers, so a type that is not listed pays a handful of comparisons.
enum KnownEncodable {
  static func encode<T: Encodable>(_ value: T) -> JSONValue? {
    if let value = exactly(value, as: JSONValue.self) { return value }
    if let value = exactly(value, as: String.self) { return .string(value) }
    if let value = exactly(value, as: Int.self) { return .int(value) }
    if let value = exactly(value, as: Bool.self) { return .bool(value) }
    if let value = exactly(value, as: Double.self) { return JSONValue(encoding: value) }
    if let value = exactly(value, as: [Int].self) { return .array(value.map(JSONValue.int)) }
    if let value = exactly(value, as: [String].self) { return .array(value.map(JSONValue.string)) }
    if let value = exactly(value, as: [Bool].self) { return .array(value.map(JSONValue.bool)) }
    if let value = exactly(value, as: [Double].self) {
      return .array(value.map(JSONValue.init(encoding:)))
    }
    if let value = exactly(value, as: [JSONValue].self) { return .array(value) }
    if let value = exactly(value, as: JSONObject.self) { return .object(value) }
    return nil
  }
}

/// `value` as a `U` when `T` is exactly `U`: a metadata comparison, not a dynamic cast.
@inline(__always)
func exactly<T, U>(_ value: T, as type: U.Type) -> U? {
  T.self == U.self ? unsafeBitCast(value, to: U.self) : nil
}

extension JSONValue {
  /// A number for finite values, `null` for NaN and infinities.
  init(encoding value: Double) {
    self = value.isFinite ? .number(value) : .null
  }

  /// Goes through the shortest text of the `Float`, so that `0.1` is written `0.1` and not
  /// `0.10000000149011612`, and still reads back as the same `Float`.
  init(encoding value: Float) {
    self = value.isFinite ? .number(Double(value.description) ?? Double(value)) : .null
  }

  /// An `.int`; an unsigned value above `Int.max` has no exact JSON form here (a double would
  /// round it), so it is an error rather than a silently different number.
  init<T: FixedWidthInteger>(encoding value: T, path: @autoclosure () -> [any CodingKey]) throws {
    guard let integer = Int(exactly: value) else {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: path(), debugDescription: "\(T.self) value \(value) is larger than Int.max"))
    }
    self = .int(integer)
  }
}

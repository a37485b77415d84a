/// Strict conversions from JSON values to Swift scalars: no coercion between kinds, and numbers
/// must fit the target type exactly (an `Int8` does not silently wrap 300, an `Int` does not
/// truncate 1.5).
///
/// `path` is only evaluated when a conversion fails.
enum ScalarDecoding {
  static func integer<T: FixedWidthInteger>(
    _ type: T.Type, from value: JSONValue, allowsNull: Bool,
    path: @autoclosure () -> [any CodingKey]
  ) throws -> T {
    switch value {
    case .int(let integer):
      guard let result = T(exactly: integer) else {
        throw DecodingFailure.outOfRange(T.self, found: value, path: path())
      }
      return result
    case .number(let number) where number.isIntegral:
      // An integer written as an integer is `.int` whenever it fits an `Int`, so a double of
      // exactly -2^63 was rounded to it from a number below `Int.min` (-2^63-1 is that double):
      // refused, rather than taken as another number.
      guard number != -0x1p63, let result = number.exactInteger(as: T.self) else {
        throw DecodingFailure.outOfRange(T.self, found: value, path: path())
      }
      return result
    default:
      throw DecodingFailure.mismatch(
        T.self, expected: "an integer", found: value, allowsNull: allowsNull, path: path())
    }
  }

  static func double(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> Double {
    guard let number = value.doubleValue else {
      throw DecodingFailure.mismatch(
        Double.self, expected: "a number", found: value, allowsNull: allowsNull, path: path())
    }
    return number
  }

  static func float(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> Float {
    guard let number = value.doubleValue else {
      throw DecodingFailure.mismatch(
        Float.self, expected: "a number", found: value, allowsNull: allowsNull, path: path())
    }
    let result = Float(number)
    guard result.isFinite else {
      throw DecodingFailure.outOfRange(Float.self, found: value, path: path())
    }
    return result
  }

  static func bool(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> Bool {
    guard case .bool(let result) = value else {
      throw DecodingFailure.mismatch(
        Bool.self, expected: "a boolean", found: value, allowsNull: allowsNull, path: path())
    }
    return result
  }

  static func string(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> String {
    guard case .string(let result) = value else {
      throw DecodingFailure.mismatch(
        String.self, expected: "a string", found: value, allowsNull: allowsNull, path: path())
    }
    return result
  }
}

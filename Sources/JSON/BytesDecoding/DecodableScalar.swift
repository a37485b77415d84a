/// The types the containers' non-generic `decode` overloads read, each with its
/// `ScalarDecoding` conversion, so that one generic function serves all the overloads of a
/// container.
protocol DecodableScalar {
  static func read(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> Self
}

extension DecodableScalar where Self: FixedWidthInteger {
  static func read(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> Self {
    try ScalarDecoding.integer(Self.self, from: value, allowsNull: allowsNull, path: path())
  }
}

extension Int: DecodableScalar {}
extension Int8: DecodableScalar {}
extension Int16: DecodableScalar {}
extension Int32: DecodableScalar {}
extension Int64: DecodableScalar {}
extension UInt: DecodableScalar {}
extension UInt8: DecodableScalar {}
extension UInt16: DecodableScalar {}
extension UInt32: DecodableScalar {}
extension UInt64: DecodableScalar {}

extension Bool: DecodableScalar {
  static func read(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> Bool {
    try ScalarDecoding.bool(from: value, allowsNull: allowsNull, path: path())
  }
}

extension String: DecodableScalar {
  static func read(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> String {
    try ScalarDecoding.string(from: value, allowsNull: allowsNull, path: path())
  }
}

extension Double: DecodableScalar {
  static func read(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> Double {
    try ScalarDecoding.double(from: value, allowsNull: allowsNull, path: path())
  }
}

extension Float: DecodableScalar {
  static func read(
    from value: JSONValue, allowsNull: Bool, path: @autoclosure () -> [any CodingKey]
  ) throws -> Float {
    try ScalarDecoding.float(from: value, allowsNull: allowsNull, path: path())
  }
}

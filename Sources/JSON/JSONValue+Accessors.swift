/// Optional views of a value, for reading envelopes without a `switch` at every step.
extension JSONValue {
  /// The member named `key` when this is an object that has it.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let object) = self else { return nil }
    return object[key]
  }

  public var isNull: Bool {
    if case .null = self { true } else { false }
  }

  /// Neither an array nor an object.
  public var isScalar: Bool {
    switch self {
    case .array, .object: false
    default: true
    }
  }

  public var boolValue: Bool? {
    if case .bool(let value) = self { value } else { nil }
  }

  /// The integer when this is an `.int`, or a `.number` with an integral value that fits `Int`.
  public var intValue: Int? {
    switch self {
    case .int(let value): value
    case .number(let value): value.exactInt
    default: nil
    }
  }

  /// The value of any number.
  public var doubleValue: Double? {
    switch self {
    case .int(let value): Double(value)
    case .number(let value): value
    default: nil
    }
  }

  public var stringValue: String? {
    if case .string(let value) = self { value } else { nil }
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let value) = self { value } else { nil }
  }

  public var objectValue: JSONObject? {
    if case .object(let value) = self { value } else { nil }
  }

  /// The strings, when this is an array of strings only.
  public var stringArray: [String]? {
    guard let array = arrayValue else { return nil }
    let strings = array.compactMap(\.stringValue)
    return strings.count == array.count ? strings : nil
  }

  /// The value `pointer` points to, if there is one.
  public func value(at pointer: JSONPointer) -> JSONValue? {
    try? resolve(pointer)
  }
}

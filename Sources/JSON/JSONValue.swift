/// A JSON document held in memory.
///
/// Integers that fit `Int` are kept as `.int` so that counters and identifiers survive a round
/// trip exactly; every other number is a `.number`. JSON itself has a single number type, so
/// `.int(1) == .number(1.0)` and the two hash alike. Strings are equal when their UTF-8 bytes
/// are, as in JSON, not under Swift's Unicode equivalence.
public enum JSONValue: Sendable {
  case null
  case bool(Bool)
  case int(Int)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)
}

extension JSONValue: Equatable {
  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.int(let a), .int(let b)): a == b
    case (.number(let a), .number(let b)): a == b
    case (.int(let a), .number(let b)), (.number(let b), .int(let a)): b.exactInt == a
    case (.string(let a), .string(let b)): a.hasSameUTF8(as: b)
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)): a == b
    default: false
    }
  }
}

extension JSONValue: Hashable {
  public func hash(into hasher: inout Hasher) {
    switch self {
    case .null:
      hasher.combine(0 as UInt8)
    case .bool(let value):
      hasher.combine(1 as UInt8)
      hasher.combine(value)
    case .int(let value):
      hasher.combine(2 as UInt8)
      hasher.combine(value)
    case .number(let value):
      // A double equal to some Int must hash like that `.int`.
      if let integer = value.exactInt {
        hasher.combine(2 as UInt8)
        hasher.combine(integer)
      } else {
        hasher.combine(3 as UInt8)
        hasher.combine(value)
      }
    case .string(let value):
      hasher.combine(4 as UInt8)
      value.hashUTF8(into: &hasher)
    case .array(let value):
      hasher.combine(5 as UInt8)
      hasher.combine(value)
    case .object(let value):
      hasher.combine(6 as UInt8)
      hasher.combine(value)
    }
  }
}

extension JSONValue: CustomStringConvertible {
  /// The compact JSON text, so that test failures and logs show real JSON.
  public var description: String { jsonString }
}

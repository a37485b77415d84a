/// A state encoded as one keyed member per field, listed once in ``encodedFields``.
///
/// The list is the state's `Encodable` conformance (the default `encode(to:)` writes the
/// members in this order) and also lets a host diff two states field by field: a member whose
/// field is `==` before and after is not encoded again. For a state that changes in one or two
/// fields per action, that replaces encoding the whole state with a few comparisons.
///
/// Each field's `==` must agree with its encoding: values that are equal encode the same.
///
/// ```swift
/// extension CounterState: FieldwiseEncodable {
///   static let encodedFields: [EncodedField<Self>] = [
///     EncodedField("count", \.count),
///     EncodedField("isPrime", \.isPrime),  // derived members are fields too
///   ]
/// }
/// ```
public protocol FieldwiseEncodable: Encodable {
  /// The members of the encoded form, in order; keys are unique.
  static var encodedFields: [EncodedField<Self>] { get }
}

/// One member of a ``FieldwiseEncodable`` state.
public struct EncodedField<Root>: Sendable {
  public let key: String
  /// True when the member's value differs between two roots.
  public let differs: @Sendable (Root, Root) -> Bool
  /// The member's value in a root.
  public let value: @Sendable (Root) -> any Encodable

  public init<Value: Encodable & Equatable & Sendable>(
    _ key: String, _ read: @escaping @Sendable (Root) -> Value
  ) {
    self.key = key
    self.differs = { read($0) != read($1) }
    self.value = { read($0) }
  }
}

extension FieldwiseEncodable {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: FieldKey.self)
    for field in Self.encodedFields {
      try container.encode(field.value(self), forKey: FieldKey(stringValue: field.key))
    }
  }
}

private struct FieldKey: CodingKey {
  let stringValue: String
  var intValue: Int? { nil }

  init(stringValue: String) {
    self.stringValue = stringValue
  }

  init?(intValue: Int) {
    nil
  }
}

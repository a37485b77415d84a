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
  /// The member's key in the encoded state.
  public let key: String
  /// Given the root a reader starts from, what tells the reader whether a later root's member
  /// differs from the last one's. Each reader keeps only the members, never a whole root: a
  /// tracked collection is remembered by its version, as holding its elements would make the
  /// store's next change to it copy them all.
  public let changeDetector: @Sendable (_ initial: Root) -> FieldChangeDetector<Root>
  /// The member's value in a root.
  public let value: @Sendable (Root) -> any Encodable

  public init<Value: Encodable & Equatable & Sendable>(
    _ key: String, _ read: @escaping @Sendable (Root) -> Value
  ) {
    self.key = key
    self.changeDetector = { initial in Self.detector(initial, read) }
    self.value = { read($0) }
  }

  /// A member that tells its changes (``/StateCollections/ChangeTrackedCollection``):
  /// compared by version.
  public init<Value: ChangeTrackedCollection & Equatable & Sendable>(
    _ key: String, _ read: @escaping @Sendable (Root) -> Value
  ) {
    self.key = key
    self.changeDetector = { initial in Self.detector(initial) { TrackedVersion(read($0)) } }
    self.value = { read($0) }
  }

  @inline(__always)
  private static func detector<Version: Equatable>(
    _ initial: Root, _ version: @escaping (Root) -> Version
  ) -> FieldChangeDetector<Root> {
    var last = version(initial)
    return FieldChangeDetector { root in
      let current = version(root)
      if current == last { return false }
      last = current
      return true
    }
  }
}

/// Tells whether a root's member differs from the last root's it was given, and remembers it.
/// A struct rather than a bare function so that a reader keeps it, and calls it, in the form
/// it was made in: an array of bare functions converts each call's root to another form,
/// copying the whole root.
public struct FieldChangeDetector<Root> {
  /// Whether the root's member differs from the last root's; remembers it either way.
  public let changed: (Root) -> Bool
}

/// A tracked collection's version, as far as a reader can tell without its elements: two
/// versions of one history, or two empty collections, are equal.
private struct TrackedVersion: Equatable, Sendable {
  let token: ChangeToken
  let isEmpty: Bool

  init(_ collection: some ChangeTrackedCollection) {
    token = collection.changeToken
    isEmpty = collection.count == 0
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.token == rhs.token || (lhs.isEmpty && rhs.isEmpty)
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

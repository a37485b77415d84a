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
///
/// The ``FieldwiseState()`` macro writes the list from the struct's declaration, with a
/// ``FieldTracker`` that compares each member directly.
public protocol FieldwiseEncodable: Encodable {
  /// The members of the encoded form, in order; keys are unique.
  static var encodedFields: [EncodedField<Self>] { get }
  /// What tells a host which members changed from one state to the next. By default the
  /// ``EncodedField/changeDetector``s of ``encodedFields``, one closure per member; the
  /// ``FieldwiseState()`` macro writes one that keeps each member's last value in a field of
  /// its own and compares it inline.
  associatedtype FieldTracker: FieldChangeTracker<Self> = EncodedFieldsTracker<Self>
}

/// Tells which members of successive roots differ from the last root's, in the order of the
/// root's ``FieldwiseEncodable/encodedFields``.
public protocol FieldChangeTracker<Root> {
  associatedtype Root
  /// Remembers the members of `initial`.
  init(_ initial: Root)
  /// Reports each member of `new` that differs from the last root's to `sink`, in order, and
  /// remembers it.
  mutating func reportChanges(to new: Root, into sink: inout some FieldChangeSink)
}

/// What a ``FieldChangeTracker`` reports changed members to: a host's patch writer.
///
/// The commonest members, an `Int`, a `Bool` or a `String`, have requirements of their own,
/// which a tracker that knows a member's type calls (the compiler prefers them to the generic
/// one): a host writes them without generic code, which the compiler does not always
/// specialize across modules. By default they are the generic requirement's.
public protocol FieldChangeSink {
  /// Member `index` (its position in ``FieldwiseEncodable/encodedFields``) is now `value`.
  mutating func member<Value: Encodable>(_ index: Int, changedTo value: Value)
  mutating func member(_ index: Int, changedTo value: Int)
  mutating func member(_ index: Int, changedTo value: Bool)
  mutating func member(_ index: Int, changedTo value: String)
}

extension FieldChangeSink {
  public mutating func member(_ index: Int, changedTo value: Int) {
    reportAnyMember(index, value)
  }

  public mutating func member(_ index: Int, changedTo value: Bool) {
    reportAnyMember(index, value)
  }

  public mutating func member(_ index: Int, changedTo value: String) {
    reportAnyMember(index, value)
  }

  /// The generic requirement: called from a scalar's, `member(_:changedTo:)` would be the
  /// scalar's again.
  private mutating func reportAnyMember<Value: Encodable>(_ index: Int, _ value: Value) {
    member(index, changedTo: value)
  }
}

/// The tracker of a state that lists its fields by hand: each member's detector, called
/// through its closure.
public struct EncodedFieldsTracker<Root: FieldwiseEncodable>: FieldChangeTracker {
  private let fields = Root.encodedFields
  private let detectors: [FieldChangeDetector<Root>]

  public init(_ initial: Root) {
    detectors = fields.map { $0.changeDetector(initial) }
  }

  public mutating func reportChanges(to new: Root, into sink: inout some FieldChangeSink) {
    for index in fields.indices where detectors[index].changed(new) {
      sink.member(index, changedTo: fields[index].value(new))
    }
  }
}

/// A member's last value as a ``FieldChangeTracker`` written by ``FieldwiseState()`` keeps
/// it: the value itself, compared with `==`, or for a tracked collection its version (holding
/// the elements would make the store's next change to the collection copy them all).
public struct FieldMemo<Value: Equatable> {
  @usableFromInline var value: Value?
  @usableFromInline var version: TrackedVersion?

  @inlinable
  public init(_ initial: Value) {
    value = initial
  }

  /// Whether `new` differs from the last value; remembers it either way.
  @inlinable
  public mutating func update(_ new: Value) -> Bool {
    if value == new { return false }
    value = new
    return true
  }
}

extension FieldMemo where Value: ChangeTrackedCollection {
  @inlinable
  public init(_ initial: Value) {
    version = TrackedVersion(initial)
  }

  @inlinable
  public mutating func update(_ new: Value) -> Bool {
    let current = TrackedVersion(new)
    if current == version { return false }
    version = current
    return true
  }
}

extension FieldMemo: Sendable where Value: Sendable {}

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
    self.changeDetector = { initial in
      var memo = FieldMemo(read(initial))
      return FieldChangeDetector { memo.update(read($0)) }
    }
    self.value = { read($0) }
  }

  /// A member that tells its changes (``/StateCollections/ChangeTrackedCollection``):
  /// compared by version.
  public init<Value: ChangeTrackedCollection & Equatable & Sendable>(
    _ key: String, _ read: @escaping @Sendable (Root) -> Value
  ) {
    self.key = key
    self.changeDetector = { initial in
      var memo = FieldMemo(read(initial))
      return FieldChangeDetector { memo.update(read($0)) }
    }
    self.value = { read($0) }
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
@usableFromInline
struct TrackedVersion: Equatable, Sendable {
  @usableFromInline let token: ChangeToken
  @usableFromInline let isEmpty: Bool

  @inlinable
  init(_ collection: some ChangeTrackedCollection) {
    token = collection.changeToken
    isEmpty = collection.count == 0
  }

  @inlinable
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

/// Conforms a struct to ``FieldwiseEncodable`` from its declaration: its members are its
/// stored properties, but those marked ``NotEncoded()``, and the computed ones marked
/// ``EncodedMember()``, in the order they are declared, each under its name. Each member's
/// type is written out.
///
/// ```swift
/// @FieldwiseState
/// struct CounterState: Equatable {
///   var count: Int = 0
///   @NotEncoded var scratch: [Int] = []
///   /// Derived: a host renders it without reimplementing primality.
///   @EncodedMember var isPrime: Bool { Primality.isPrime(count) }
/// }
/// ```
///
/// Besides the list of members, the macro writes the state's ``FieldwiseEncodable/FieldTracker``:
/// a struct with a field per member holding its last value (a tracked collection's version),
/// compared directly. A host reads each member once per action, so a derived member is
/// computed once.
@attached(
  extension, conformances: FieldwiseEncodable, names: named(encodedFields), named(FieldTracker))
public macro FieldwiseState() =
  #externalMacro(module: "ComposableMacros", type: "FieldwiseStateMacro")

/// Makes a computed property of a ``FieldwiseState()`` struct a member of its encoded form.
@attached(peer)
public macro EncodedMember() =
  #externalMacro(module: "ComposableMacros", type: "EncodedMemberMarkerMacro")

/// Leaves a stored property of a ``FieldwiseState()`` struct out of its encoded form.
@attached(peer)
public macro NotEncoded() =
  #externalMacro(module: "ComposableMacros", type: "EncodedMemberMarkerMacro")

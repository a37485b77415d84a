/// An ordered collection of unique values, with membership and position found in constant
/// time: swift-collections' `OrderedSet`, for a store's state. It encodes as a plain array.
///
/// Like ``IdentifiedArray`` (on which it is built, each value being its own id), it remembers
/// what changed, so the patch a host writes after an action lists the values added or removed
/// in time proportional to them, however many the set holds. Adding or removing at either end
/// takes constant time; in the middle, time proportional to the distance to the nearer end.
///
/// ```swift
/// struct State: Equatable, Encodable {
///   var favorites: TrackedOrderedSet<Int> = []
/// }
/// state.favorites.append(7)        // (inserted: true, index: 0)
/// state.favorites.contains(7)      // true, without searching
/// state.favorites.remove(7)
/// ```
///
/// `contains(_:)` and `firstIndex(of:)` are this type's own, in constant time, wherever the
/// type is known; through a generic `Sequence` they search, as any sequence's do.
public struct TrackedOrderedSet<Element: Hashable> {
  private var members: IdentifiedArray<Member>

  /// A value as its own id.
  struct Member: Identifiable, Equatable {
    let value: Element
    var id: Element { value }
  }

  /// An empty set.
  public init() {
    members = []
  }

  /// The values in order, each kept where it first appears: later repeats are dropped.
  public init(_ elements: some Sequence<Element>) {
    var seen = Set<Element>()
    members = IdentifiedArray(
      uniqueElements: elements.lazy.filter { seen.insert($0).inserted }.map { Member(value: $0) })
  }

  /// The values, in order, as an array.
  public var elements: [Element] { members.map(\.value) }

  /// Whether the set holds `element`, in constant time.
  public func contains(_ element: Element) -> Bool {
    members.index(id: element) != nil
  }

  /// The position of `element`, in constant time; nil when the set does not hold it.
  public func firstIndex(of element: Element) -> Int? {
    members.index(id: element)
  }

  /// Appends `element` unless it is there already.
  @discardableResult
  public mutating func append(_ element: Element) -> (inserted: Bool, index: Int) {
    members.append(Member(value: element))
  }

  /// Appends the elements not there yet, in order.
  public mutating func append(contentsOf elements: some Sequence<Element>) {
    members.append(contentsOf: elements.lazy.map { Member(value: $0) })
  }

  /// Inserts `element` at `position` unless it is there already.
  @discardableResult
  public mutating func insert(_ element: Element, at position: Int) -> (
    inserted: Bool, index: Int
  ) {
    members.insert(Member(value: element), at: position)
  }

  /// Removes `element`; what was removed, or nil when it was not there.
  @discardableResult
  public mutating func remove(_ element: Element) -> Element? {
    members.remove(id: element)?.value
  }

  /// Removes and returns the value at `position`.
  @discardableResult
  public mutating func remove(at position: Int) -> Element {
    members.remove(at: position).value
  }

  /// Removes and returns the first value, in constant time.
  @discardableResult
  public mutating func removeFirst() -> Element {
    members.removeFirst().value
  }

  public mutating func removeFirst(_ k: Int) {
    members.removeFirst(k)
  }

  /// Removes and returns the last value, in constant time.
  @discardableResult
  public mutating func removeLast() -> Element {
    members.removeLast().value
  }

  /// Empties the set; its history starts again, unless it was empty already.
  public mutating func removeAll() {
    members.removeAll()
  }

  /// Removes the elements that match, as that many removals (from the last one).
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    try members.removeAll { try shouldBeRemoved($0.value) }
  }

  /// Moves the element at `source` so that it ends at `destination`.
  public mutating func move(from source: Int, to destination: Int) {
    members.move(from: source, to: destination)
  }

  /// Sorts in place; the history starts again, so a host reads the set whole.
  public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
    try members.sort { try areInIncreasingOrder($0.value, $1.value) }
  }

  /// Makes room for `minimumCapacity` values.
  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    members.reserveCapacity(minimumCapacity)
  }

  var storageAddress: UnsafeRawPointer? { members.storageAddress }
}

extension TrackedOrderedSet where Element: Comparable {
  /// Sorts the values in increasing order; the history starts again, so a host reads the set
  /// whole.
  public mutating func sort() {
    sort(by: <)
  }
}

extension TrackedOrderedSet: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { members.count }
  public subscript(position: Int) -> Element { members[position].value }

  // The standard library's defaults for an integer index check each step against a `Range`,
  // whose metadata a generic caller (an encoder walking the elements) looks up at every step.
  public func index(after position: Int) -> Int { position + 1 }
  public func index(before position: Int) -> Int { position - 1 }
  public func index(_ position: Int, offsetBy distance: Int) -> Int { position + distance }
  public func distance(from start: Int, to end: Int) -> Int { end - start }
}

extension TrackedOrderedSet: ExpressibleByArrayLiteral {
  /// The elements must be unique, as a literal's are meant to be.
  public init(arrayLiteral elements: Element...) {
    members = IdentifiedArray(uniqueElements: elements.map { Member(value: $0) })
  }
}

extension TrackedOrderedSet: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.members == rhs.members
  }
}

extension TrackedOrderedSet: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for element in self { hasher.combine(element) }
  }
}

extension TrackedOrderedSet.Member: Sendable where Element: Sendable {}
extension TrackedOrderedSet: Sendable where Element: Sendable {}

extension TrackedOrderedSet: CustomStringConvertible, CustomDebugStringConvertible {
  public var description: String { elements.description }
  public var debugDescription: String { elements.debugDescription }
}

/// Reflected as its values, as an array is: a dump or a test's difference shows the value that
/// differs, not the members that hold them.
extension TrackedOrderedSet: CustomReflectable {
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: elements, displayStyle: .collection)
  }
}

extension TrackedOrderedSet: Encodable where Element: Encodable {
  public func encode(to encoder: any Encoder) throws {
    try encodeAsArray(to: encoder)
  }
}

extension TrackedOrderedSet: Decodable where Element: Decodable {
  /// Reads an array whose elements are unique; a repeated one is an error.
  public init(from decoder: any Decoder) throws {
    let elements = try [Element](from: decoder)
    var seen = Set<Element>()
    for element in elements where !seen.insert(element).inserted {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: "the element \(element) is repeated"))
    }
    members = IdentifiedArray(uniqueElements: elements.map { Member(value: $0) })
  }
}

extension TrackedOrderedSet: ChangeTrackedCollection where Element: Encodable {
  public var changeToken: ChangeToken { members.token }

  public func encodableElement(at position: Int) -> any Encodable {
    members[position].value
  }

  public func encodable(previousElement: Any) -> any Encodable {
    (previousElement as! Member).value
  }
}

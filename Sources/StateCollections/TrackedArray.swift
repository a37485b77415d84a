import DequeModule

/// An array for a store's state that remembers what changed (``ChangeTrackedCollection``), so
/// the patch a host writes after an action lists the elements added, removed or changed, in
/// time proportional to them, however many the array holds. It encodes as a plain array and
/// has `Array`'s interface (`append`, `insert`, `remove(at:)`, `removeFirst(_:)`, subscripts,
/// `removeAll(where:)`, …). Adding or removing at either end takes constant time, so a bounded
/// log that drops its oldest entry stays cheap; in the middle, time proportional to the
/// distance to the nearer end.
///
/// ```swift
/// struct State: Equatable, Encodable {
///   var messages: TrackedArray<String> = []
/// }
/// state.messages.append("hello")
/// if state.messages.count > 100 { state.messages.removeFirst() }
/// ```
///
/// Replacing the whole array (`state.messages = [...]`), sorting it, or changing more than a
/// few hundred elements at once starts its history again: the host then writes it whole.
public struct TrackedArray<Element> {
  private var elements: Deque<Element>
  private var journal: ChangeJournal
  private var version: UInt64 = 0

  public init() {
    elements = []
    journal = ChangeJournal()
  }

  /// Where the elements are, while they are in one piece: for tests that check a change did
  /// not copy them.
  var storageAddress: UnsafeRawPointer? {
    elements.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
  }

  /// This value's version, whatever its elements.
  @inline(__always) var token: ChangeToken { ChangeToken(journal: journal, version: version) }

  private mutating func record(_ change: CollectionChange, replacing previous: Element? = nil) {
    if let next = journal.record(change, replacing: previous, after: version) {
      version = next
    } else {
      // A copy changed after another copy of the same version did: a history of its own.
      journal = ChangeJournal()
      version = 0
    }
  }
}

extension TrackedArray: RandomAccessCollection, MutableCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { elements.count }

  // The standard library's defaults for an integer index check each step against a `Range`,
  // whose metadata a generic caller (an encoder walking the elements) looks up at every step.
  public func index(after position: Int) -> Int { position + 1 }
  public func index(before position: Int) -> Int { position - 1 }
  public func index(_ position: Int, offsetBy distance: Int) -> Int { position + distance }
  public func distance(from start: Int, to end: Int) -> Int { end - start }

  public subscript(position: Int) -> Element {
    get { elements[position] }
    set {
      let previous = elements[position]
      elements[position] = newValue
      record(.updated(position), replacing: previous)
    }
  }
}

extension TrackedArray: RangeReplaceableCollection {
  public init(_ elements: some Sequence<Element>) {
    self.init()
    self.elements.append(contentsOf: elements)
  }

  /// Each element removed, then each inserted, is one change.
  public mutating func replaceSubrange<C: Collection<Element>>(
    _ subrange: Range<Int>, with newElements: C
  ) {
    elements.replaceSubrange(subrange, with: newElements)
    for _ in subrange { record(.removed(subrange.lowerBound)) }
    for offset in 0..<newElements.count { record(.inserted(subrange.lowerBound + offset)) }
  }

  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    elements.reserveCapacity(minimumCapacity)
  }

  /// Removes the elements that match, as that many removals (from the last one).
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    var removed: [Int] = []
    var kept = Deque<Element>()
    for (position, element) in elements.enumerated() {
      if try shouldBeRemoved(element) { removed.append(position) } else { kept.append(element) }
    }
    guard !removed.isEmpty else { return }
    elements = kept
    for position in removed.reversed() { record(.removed(position)) }
  }

  /// Empties the array; its history starts again, unless it was empty already.
  public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
    if !isEmpty { self = TrackedArray() }
  }
}

extension TrackedArray: ExpressibleByArrayLiteral {
  public init(arrayLiteral elements: Element...) {
    self.init(elements)
  }
}

extension TrackedArray: Equatable where Element: Equatable {
  /// The same version of one history is the same array, found without comparing elements: a
  /// state that did not touch its array compares in constant time.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    (lhs.journal === rhs.journal && lhs.version == rhs.version) || lhs.elements == rhs.elements
  }
}

extension TrackedArray: Hashable where Element: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(elements)
  }
}

extension TrackedArray: Sendable where Element: Sendable {}

extension TrackedArray: CustomStringConvertible, CustomDebugStringConvertible {
  public var description: String { Array(elements).description }
  public var debugDescription: String { Array(elements).debugDescription }
}

/// Reflected as its elements, as an array is: a dump or a test's difference shows the element
/// that differs, not its journal.
extension TrackedArray: CustomReflectable {
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: Array(elements), displayStyle: .collection)
  }
}

extension TrackedArray: Encodable where Element: Encodable {
  public func encode(to encoder: any Encoder) throws {
    try elements.encodeAsArray(to: encoder)
  }
}

extension Sequence where Element: Encodable {
  /// The form of every state collection: a plain array of its elements.
  func encodeAsArray(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    for element in self { try container.encode(element) }
  }
}

extension TrackedArray: Decodable where Element: Decodable {
  public init(from decoder: any Decoder) throws {
    self.init(try [Element](from: decoder))
  }
}

extension TrackedArray: ChangeTrackedCollection where Element: Encodable {
  public var changeToken: ChangeToken { token }

  public func encodableElement(at position: Int) -> any Encodable {
    elements[position]
  }

  public func encodable(previousElement: Any) -> any Encodable {
    previousElement as! Element
  }
}

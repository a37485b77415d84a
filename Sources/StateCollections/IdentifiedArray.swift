import DequeModule

/// An ordered collection of elements with unique ids, found by id in constant time: TCA's
/// `IdentifiedArray`, for lists in a store's state. It encodes as a plain array of its elements.
///
/// Unlike an array, it remembers what changed (``ChangeTrackedCollection``), so the patch a host
/// writes after an action lists the elements added, removed or changed, in time proportional
/// to them, however many the collection holds. Adding or removing at either end takes constant
/// time (a bounded log that drops its oldest entry stays cheap); in the middle, time
/// proportional to the distance to the nearer end.
///
/// ```swift
/// struct State: Equatable, Encodable {
///   var todos: IdentifiedArrayOf<Todo> = []
/// }
/// state.todos.append(Todo(id: 7, title: "Buy milk"))
/// state.todos[id: 7]?.done = true
/// state.todos.remove(id: 7)
/// ```
public struct IdentifiedArray<Element: Identifiable> {
  private var storage: Storage
  private var journal: ChangeJournal
  private var version: UInt64 = 0

  /// The elements, with the absolute position of each id: the position of `elements[i]` is
  /// `base + i`, so removing the first element only moves `base`.
  private final class Storage {
    var elements: Deque<Element>
    var positions: [Element.ID: Int]
    var base = 0

    init(elements: Deque<Element>, positions: [Element.ID: Int], base: Int) {
      self.elements = elements
      self.positions = positions
      self.base = base
    }

    func copy() -> Storage {
      Storage(elements: elements, positions: positions, base: base)
    }
  }

  public init() {
    storage = Storage(elements: [], positions: [:], base: 0)
    journal = ChangeJournal()
  }

  /// The elements in order; their ids must be unique.
  public init(uniqueElements elements: some Sequence<Element>) {
    self.init()
    for element in elements {
      let (inserted, _) = append(element)
      precondition(inserted, "IdentifiedArray: the id \(element.id) is repeated")
    }
    // A new value: its history starts here.
    journal = ChangeJournal()
    version = 0
  }

  public var ids: [Element.ID] { storage.elements.map(\.id) }
  public var elements: [Element] { Array(storage.elements) }

  /// The position of the element with this id.
  public func index(id: Element.ID) -> Int? {
    storage.positions[id].map { $0 - storage.base }
  }

  /// The element with this id. Setting an element replaces the one with its id, or appends it;
  /// setting nil removes the one there is.
  public subscript(id id: Element.ID) -> Element? {
    get { index(id: id).map { storage.elements[$0] } }
    set {
      if let newValue {
        precondition(newValue.id == id, "IdentifiedArray: the element set has another id")
        if let index = index(id: id) {
          self[index] = newValue
        } else {
          append(newValue)
        }
      } else {
        remove(id: id)
      }
    }
  }

  /// The element at `position`; one set there must keep its id.
  public subscript(position: Int) -> Element {
    get { storage.elements[position] }
    set {
      precondition(
        newValue.id == storage.elements[position].id,
        "IdentifiedArray: an element set at a position must keep its id")
      makeUnique()
      let previous = storage.elements[position]
      storage.elements[position] = newValue
      record(.updated(position), replacing: previous)
    }
  }

  /// Appends `element` unless its id is there already.
  @discardableResult
  public mutating func append(_ element: Element) -> (inserted: Bool, index: Int) {
    if let index = index(id: element.id) { return (false, index) }
    return (true, insertNew(element, at: count))
  }

  /// Appends the elements whose ids are not there yet, in order.
  public mutating func append(contentsOf elements: some Sequence<Element>) {
    for element in elements { append(element) }
  }

  /// Inserts `element` at `position` unless its id is there already.
  @discardableResult
  public mutating func insert(_ element: Element, at position: Int) -> (
    inserted: Bool, index: Int
  ) {
    if let index = index(id: element.id) { return (false, index) }
    precondition(position >= 0 && position <= count, "IdentifiedArray: position out of range")
    return (true, insertNew(element, at: position))
  }

  @discardableResult
  public mutating func remove(at position: Int) -> Element {
    makeUnique()
    let removed = storage.elements.remove(at: position)
    storage.positions[removed.id] = nil
    // The elements on the shorter side of the gap move; their positions follow.
    if position < count - position {
      for index in 0..<position { storage.positions[storage.elements[index].id]! += 1 }
      storage.base += 1
    } else {
      for index in position..<count { storage.positions[storage.elements[index].id]! -= 1 }
    }
    record(.removed(position))
    return removed
  }

  @discardableResult
  public mutating func remove(id: Element.ID) -> Element? {
    index(id: id).map { remove(at: $0) }
  }

  @discardableResult
  public mutating func removeFirst() -> Element {
    remove(at: 0)
  }

  public mutating func removeFirst(_ k: Int) {
    precondition(k >= 0 && k <= count, "IdentifiedArray: cannot remove \(k) of \(count)")
    for _ in 0..<k { remove(at: 0) }
  }

  @discardableResult
  public mutating func removeLast() -> Element {
    remove(at: count - 1)
  }

  /// Empties the collection; its history starts again, unless it was empty already.
  public mutating func removeAll() {
    if !isEmpty { self = IdentifiedArray() }
  }

  /// Removes the elements that match, as that many removals (from the last one).
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    let removed = try storage.elements.indices.filter { try shouldBeRemoved(storage.elements[$0]) }
    guard !removed.isEmpty else { return }
    makeUnique()
    var kept = Deque<Element>()
    kept.reserveCapacity(count - removed.count)
    var next = removed.startIndex
    for (index, element) in storage.elements.enumerated() {
      if next < removed.endIndex, removed[next] == index {
        next += 1
      } else {
        kept.append(element)
      }
    }
    storage.elements = kept
    storage.base = 0
    storage.positions.removeAll(keepingCapacity: true)
    for (index, element) in storage.elements.enumerated() { storage.positions[element.id] = index }
    for position in removed.reversed() { record(.removed(position)) }
  }

  /// Moves the element at `source` so that it ends at `destination`.
  public mutating func move(from source: Int, to destination: Int) {
    guard source != destination else { return }
    let element = remove(at: source)
    insertNew(element, at: destination)
  }

  /// Sorts in place; the history starts again, so a host reads the collection whole.
  public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
    self = IdentifiedArray(uniqueElements: try storage.elements.sorted(by: areInIncreasingOrder))
  }

  @discardableResult
  private mutating func insertNew(_ element: Element, at position: Int) -> Int {
    makeUnique()
    storage.elements.insert(element, at: position)
    if position < count - 1 - position {
      storage.base -= 1
      for index in 0..<position { storage.positions[storage.elements[index].id]! -= 1 }
    } else {
      for index in position + 1..<count { storage.positions[storage.elements[index].id]! += 1 }
    }
    storage.positions[element.id] = storage.base + position
    record(.inserted(position))
    return position
  }

  /// Which storage holds the elements, for tests that check a change did not copy them.
  var storageIdentity: ObjectIdentifier { ObjectIdentifier(storage) }

  private mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
  }

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

/// TCA's spelling for a collection of `Identifiable` elements.
public typealias IdentifiedArrayOf<Element: Identifiable> = IdentifiedArray<Element>

extension IdentifiedArray: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { storage.elements.count }
}

extension IdentifiedArray: ExpressibleByArrayLiteral {
  public init(arrayLiteral elements: Element...) {
    self.init(uniqueElements: elements)
  }
}

extension IdentifiedArray: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    (lhs.storage === rhs.storage) || lhs.storage.elements == rhs.storage.elements
  }
}

// The storage is changed only when this value holds the one reference to it.
extension IdentifiedArray: @unchecked Sendable where Element: Sendable, Element.ID: Sendable {}

extension IdentifiedArray: CustomStringConvertible, CustomDebugStringConvertible {
  public var description: String { elements.description }
  public var debugDescription: String { elements.debugDescription }
}

extension IdentifiedArray: Encodable where Element: Encodable {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    for element in storage.elements { try container.encode(element) }
  }
}

extension IdentifiedArray: Decodable where Element: Decodable {
  /// Reads an array whose elements' ids are unique; a repeated id is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    var container = try decoder.unkeyedContainer()
    while !container.isAtEnd {
      let element = try container.decode(Element.self)
      guard append(element).inserted else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "the id \(element.id) is repeated")
      }
    }
    journal = ChangeJournal()
    version = 0
  }
}

extension IdentifiedArray: ChangeTrackedCollection where Element: Encodable {
  public var changeToken: ChangeToken { ChangeToken(journal: journal, version: version) }

  public func encodableElement(at position: Int) -> any Encodable {
    storage.elements[position]
  }

  public func encodable(previousElement: Any) -> any Encodable {
    previousElement as! Element
  }
}

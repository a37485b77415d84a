/// An ordered collection of elements with unique ids, found by id in constant time: TCA's
/// `IdentifiedArray`, for lists in a store's state. It encodes as a plain array of its elements.
///
/// Its elements are kept in a ``TrackedArray``: the patch a host writes after an action lists the
/// elements added, removed or changed, in time proportional to them, however many the
/// collection holds. Adding or removing at either end takes constant time; in the middle, time
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
  private var storage: TrackedArray<Element>
  /// The absolute position of each id: the position of `elements[i]` is `base + i`, so
  /// removing the first element only moves `base`.
  private var positions: [Element.ID: Int]
  private var base = 0

  /// An empty collection.
  public init() {
    storage = []
    positions = [:]
  }

  /// The elements in order; their ids must be unique.
  public init(uniqueElements elements: some Sequence<Element>) {
    let elements = Array(elements)
    var positions = [Element.ID: Int](minimumCapacity: elements.count)
    for (position, element) in elements.enumerated() {
      let isNew = positions.updateValue(position, forKey: element.id) == nil
      precondition(isNew, "IdentifiedArray: the id \(element.id) is repeated")
    }
    self.positions = positions
    storage = TrackedArray(elements)
  }

  /// The ids of the elements, in order.
  public var ids: [Element.ID] { storage.map(\.id) }

  /// This value's version, whatever its elements: `forEach` asks which elements went away
  /// since an earlier version without keeping a copy of the collection.
  public var changeToken: ChangeToken { token }
  /// The elements, in order, as an array.
  public var elements: [Element] { Array(storage) }

  /// The position of the element with this id.
  public func index(id: Element.ID) -> Int? {
    positions[id].map { $0 - base }
  }

  /// The element with this id. Setting an element replaces the one with its id, or appends it;
  /// setting nil removes the one there is.
  public subscript(id id: Element.ID) -> Element? {
    get { index(id: id).map { storage[$0] } }
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
    get { storage[position] }
    set {
      precondition(
        newValue.id == storage[position].id,
        "IdentifiedArray: an element set at a position must keep its id")
      storage[position] = newValue
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

  /// Removes and returns the element at `position`.
  @discardableResult
  public mutating func remove(at position: Int) -> Element {
    let removed = storage.remove(at: position)
    positions[removed.id] = nil
    // The elements on the shorter side of the gap move; their positions follow.
    if position < count - position {
      for index in 0..<position { positions[storage[index].id]! += 1 }
      base += 1
    } else {
      for index in position..<count { positions[storage[index].id]! -= 1 }
    }
    return removed
  }

  /// Removes and returns the element with this id; nil when there is none.
  @discardableResult
  public mutating func remove(id: Element.ID) -> Element? {
    index(id: id).map { remove(at: $0) }
  }

  /// Removes and returns the first element, in constant time.
  @discardableResult
  public mutating func removeFirst() -> Element {
    remove(at: 0)
  }

  public mutating func removeFirst(_ k: Int) {
    precondition(k >= 0 && k <= count, "IdentifiedArray: cannot remove \(k) of \(count)")
    for _ in 0..<k { remove(at: 0) }
  }

  /// Removes and returns the last element, in constant time.
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
    let before = count
    try storage.removeAll(where: shouldBeRemoved)
    if count != before { renumber() }
  }

  /// Moves the element at `source` so that it ends at `destination`.
  public mutating func move(from source: Int, to destination: Int) {
    guard source != destination else { return }
    insertNew(remove(at: source), at: destination)
  }

  /// Sorts in place; the history starts again, so a host reads the collection whole.
  public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
    storage = TrackedArray(try storage.sorted(by: areInIncreasingOrder))
    renumber()
  }

  @discardableResult
  private mutating func insertNew(_ element: Element, at position: Int) -> Int {
    storage.insert(element, at: position)
    if position < count - 1 - position {
      base -= 1
      for index in 0..<position { positions[storage[index].id]! -= 1 }
    } else {
      for index in position + 1..<count { positions[storage[index].id]! += 1 }
    }
    positions[element.id] = base + position
    return position
  }

  var storageAddress: UnsafeRawPointer? { storage.storageAddress }
  @inline(__always) var token: ChangeToken { storage.token }

  /// Makes room for `minimumCapacity` elements.
  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    storage.reserveCapacity(minimumCapacity)
    positions.reserveCapacity(minimumCapacity)
  }

  private mutating func renumber() {
    base = 0
    positions.removeAll(keepingCapacity: true)
    for (position, element) in storage.enumerated() { positions[element.id] = position }
  }
}

/// TCA's spelling for a collection of `Identifiable` elements.
public typealias IdentifiedArrayOf<Element: Identifiable> = IdentifiedArray<Element>

extension IdentifiedArray: RandomAccessCollection {
  public var startIndex: Int { 0 }
  public var endIndex: Int { storage.count }

  // The standard library's defaults for an integer index check each step against a `Range`,
  // whose metadata a generic caller (an encoder walking the elements) looks up at every step.
  public func index(after position: Int) -> Int { position + 1 }
  public func index(before position: Int) -> Int { position - 1 }
  public func index(_ position: Int, offsetBy distance: Int) -> Int { position + distance }
  public func distance(from start: Int, to end: Int) -> Int { end - start }
}

extension IdentifiedArray: ExpressibleByArrayLiteral {
  public init(arrayLiteral elements: Element...) {
    self.init(uniqueElements: elements)
  }
}

extension IdentifiedArray: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.storage == rhs.storage
  }
}

extension IdentifiedArray: Sendable where Element: Sendable, Element.ID: Sendable {}

extension IdentifiedArray: CustomStringConvertible, CustomDebugStringConvertible {
  public var description: String { storage.description }
  public var debugDescription: String { storage.debugDescription }
}

/// Reflected as its elements, as an array is: a dump or a test's difference shows the element
/// that differs, not the storage that finds them by id.
extension IdentifiedArray: CustomReflectable {
  public var customMirror: Mirror { storage.customMirror }
}

extension IdentifiedArray: Encodable where Element: Encodable {
  public func encode(to encoder: any Encoder) throws {
    try storage.encode(to: encoder)
  }
}

extension IdentifiedArray: Decodable where Element: Decodable {
  /// Reads an array whose elements' ids are unique; a repeated id is an error.
  public init(from decoder: any Decoder) throws {
    let elements = try [Element](from: decoder)
    var ids = Set<Element.ID>()
    for element in elements where !ids.insert(element.id).inserted {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: "the id \(element.id) is repeated"))
    }
    self.init(uniqueElements: elements)
  }
}

extension IdentifiedArray: ChangeTrackedCollection where Element: Encodable {
  public func encodableElement(at position: Int) -> any Encodable {
    storage.encodableElement(at: position)
  }

  public func encodable(previousElement: Any) -> any Encodable {
    storage.encodable(previousElement: previousElement)
  }
}

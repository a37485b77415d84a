/// A stack of parsed values whose top can be moved out into an exactly sized array.
///
/// The parser pushes the elements of every open array or object here and, when the container
/// closes, moves them into the container's own storage: one allocation per container, and no
/// retain/release of the elements on the way (an `Array` used as a stack would copy them out
/// and then destroy its own copies).
struct ParseStack<Element>: ~Copyable {
  private var storage: UnsafeMutablePointer<Element>?
  private var capacity = 0
  private(set) var count = 0

  init() {}

  deinit {
    if let storage {
      storage.deinitialize(count: count)
      storage.deallocate()
    }
  }

  mutating func push(_ element: consuming Element) {
    if count == capacity {
      grow()
    }
    (storage! + count).initialize(to: element)
    count += 1
  }

  /// Moves the elements from `start` to the top into a new array, removing them from the stack.
  mutating func popArray(from start: Int) -> [Element] {
    let moved = count - start
    guard moved > 0, let storage else { return [] }
    count = start
    var array: [Element] = []
    array.append(addingCapacity: moved) { span in
      span.withUnsafeMutableBufferPointer { buffer, initializedCount in
        buffer.baseAddress!.moveInitialize(from: storage + start, count: moved)
        initializedCount = moved
      }
    }
    return array
  }

  /// The element at `index`, which must be below `count`; borrowed, not copied.
  subscript(index: Int) -> Element {
    _read { yield storage![index] }
  }

  private mutating func grow() {
    let newCapacity = max(8, capacity * 2)
    let newStorage = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
    if let storage {
      newStorage.moveInitialize(from: storage, count: count)
      storage.deallocate()
    }
    storage = newStorage
    capacity = newCapacity
  }
}

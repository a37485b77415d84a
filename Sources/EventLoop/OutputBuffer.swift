import Glibc

/// Bytes waiting for the next flush, in malloc'd memory that can be handed to libuv as is.
///
/// Noncopyable so that the memory has exactly one owner: `take()` moves it into a write request,
/// which frees it when libuv is done with it.
struct OutputBuffer: ~Copyable {
  private(set) var base: UnsafeMutableRawPointer?
  private(set) var count = 0
  private var capacity = 0

  /// The first allocation; small enough for an idle process, large enough for a burst.
  private static let initialCapacity = 16 * 1024

  init() {}

  deinit {
    free(base)
  }

  var bytes: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: base, count: count)
  }

  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
    let needed = count + bytes.count
    if needed > capacity {
      var newCapacity = max(capacity * 2, Self.initialCapacity)
      while newCapacity < needed { newCapacity *= 2 }
      guard let grown = realloc(base, newCapacity) else { fatalError("out of memory") }
      base = grown
      capacity = newCapacity
    }
    (base! + count).copyMemory(from: source, byteCount: bytes.count)
    count = needed
  }

  /// Hands the bytes to the caller, who must `free` them; the buffer starts over empty.
  mutating func take() -> UnsafeMutableRawBufferPointer {
    let taken = UnsafeMutableRawBufferPointer(start: base, count: count)
    base = nil
    count = 0
    capacity = 0
    return taken
  }

  /// Empties the buffer, keeping its memory unless a burst made it large.
  mutating func removeAll() {
    count = 0
    if capacity > 4 * Self.initialCapacity {
      free(base)
      base = nil
      capacity = 0
    }
  }
}

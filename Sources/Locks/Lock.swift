#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pthread mutex. `Synchronization.Mutex` reports false races under ThreadSanitizer on Linux
/// (PITFALLS), so state shared with other threads is guarded by this instead.
package final class Lock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

  package init() {
    let rc = pthread_mutex_init(mutex, nil)
    precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  package func withLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }
}

import EventLoop
import Glibc
import XCTest

/// A value shared between loop callbacks, other threads and the test, behind a pthread mutex.
final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

  init(_ value: Value) {
    self.value = value
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func withValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }

  var current: Value { withValue { $0 } }
}

extension Locked where Value: RangeReplaceableCollection {
  func append(_ element: Value.Element) {
    withValue { $0.append(element) }
  }
}

/// A plain thread for playing another process or a foreign library's thread.
final class TestThread: @unchecked Sendable {
  private var thread = pthread_t()
  private let body: @Sendable () -> Void

  init(_ body: @escaping @Sendable () -> Void) {
    self.body = body
    let box = Unmanaged.passRetained(self).toOpaque()
    let rc = pthread_create(&thread, nil, runTestThread, box)
    precondition(rc == 0, "pthread_create failed")
  }

  fileprivate func run() {
    body()
  }

  func join() {
    pthread_join(thread, nil)
  }

  /// Starts a thread nobody joins.
  static func detach(_ body: @escaping @Sendable () -> Void) {
    pthread_detach(TestThread(body).thread)
  }
}

private func runTestThread(_ box: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  Unmanaged<TestThread>.fromOpaque(box!).takeRetainedValue().run()
  return nil
}

/// Keeps `loop` alive (a pending sleep) while tasks wait on something the loop cannot see,
/// such as another thread; cancel the returned task when done.
func keepAlive(_ loop: EventLoop) -> Task<Void, Never> {
  Task(executorPreference: loop.executor) {
    try? await loop.clock.sleep(for: .seconds(60))
  }
}

/// A pipe whose ends the test closes itself (`closeRead`/`closeWrite` are idempotent).
final class TestPipe: @unchecked Sendable {
  let readEnd: Int32
  let writeEnd: Int32
  private let closed = Locked((read: false, write: false))

  init() {
    var fds: [Int32] = [-1, -1]
    precondition(pipe(&fds) == 0, "pipe failed")
    readEnd = fds[0]
    writeEnd = fds[1]
  }

  deinit {
    closeRead()
    closeWrite()
  }

  func closeRead() {
    if closed.withValue({ state in
      defer { state.read = true }
      return !state.read
    }) {
      Glibc.close(readEnd)
    }
  }

  func closeWrite() {
    if closed.withValue({ state in
      defer { state.write = true }
      return !state.write
    }) {
      Glibc.close(writeEnd)
    }
  }

  /// Blocking write of all of `bytes` to the write end.
  func write(_ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress, $0.count) }
      precondition(n > 0, "write to test pipe failed: \(errno)")
      offset += n
    }
  }

  func write(_ string: String) {
    write(Array(string.utf8))
  }

  /// Blocking read of the read end until EOF.
  func readToEnd() -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(readEnd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return result }
      result += chunk[..<n]
    }
  }
}

/// Whether O_NONBLOCK is set on `fd`'s open file description.
func isNonBlocking(_ fd: Int32) -> Bool {
  fcntl(fd, F_GETFL) & O_NONBLOCK != 0
}

/// Sleeps the calling (non-loop) thread.
func pause(milliseconds: Int) {
  usleep(UInt32(milliseconds * 1000))
}

extension XCTestCase {
  /// Creates a loop on the calling thread, lets `body` set it up, runs it until idle and shuts
  /// it down, failing the test unless uv_loop_close succeeds.
  func runLoop(
    file: StaticString = #filePath, line: UInt = #line, _ body: (EventLoop) throws -> Void
  ) rethrows {
    let loop = try! EventLoop()
    try body(loop)
    loop.run()
    XCTAssertFalse(
      loop.executor.hasPendingJobs, "run() returned with jobs queued", file: file, line: line)
    XCTAssertNoThrow(try loop.shutdown(), file: file, line: line)
  }
}

/// The UTF-8 text of a line handed to a callback.
func text(_ bytes: UnsafeRawBufferPointer) -> String {
  String(decoding: bytes, as: UTF8.self)
}

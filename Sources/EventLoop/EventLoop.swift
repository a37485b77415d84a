import CLibUV
import Glibc

/// The process's one libuv loop, and the thread that runs it.
///
/// The thread that creates the loop is its loop thread: `run()` and `shutdown()` must be called
/// there, and so must every method of this module that touches libuv, unless documented as
/// thread-safe (`execute`, `stop`, `isOnLoopThread`, the executor). Debug builds check it.
///
/// Swift async code reaches the loop through `executor` (a serial and task executor backed by a
/// `uv_async_t`), sleeps on `clock` (`uv_timer_t`) and offloads blocking work to `threadPool`.
package final class EventLoop: @unchecked Sendable {
  /// The libuv loop; valid until `shutdown()` finished.
  let raw: UnsafeMutablePointer<uv_loop_t>
  private let thread: pthread_t

  /// Runs jobs on the loop thread; the executor of loop-bound actors and effect tasks.
  package let executor: LoopExecutor

  /// Handles opened through `openHandle` and not closed yet, with their owners; loop thread
  /// only.
  var ownedHandles: [UnsafeMutableRawPointer: OwnedHandle] = [:]

  /// `ThreadPool.run` calls submitted and not completed; loop thread only.
  package internal(set) var poolWorkInFlight = 0

  /// Set by `shutdown()`: new handles, sleeps and pool work are refused from then on.
  private(set) var isShuttingDown = false
  private var isClosed = false
  private var stopRequested = false

  /// Creates a loop whose loop thread is the calling thread.
  package init() throws(LoopError) {
    let raw = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
    let rc = uv_loop_init(raw)
    if rc < 0 {
      raw.deallocate()
      throw LoopError(code: rc, operation: "uv_loop_init")
    }
    self.raw = raw
    thread = pthread_self()
    executor = LoopExecutor(thread: thread)
    raw.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    executor.attach(to: self)
  }

  /// Shuts down a loop that was not shut down explicitly, when that is possible (on its thread).
  deinit {
    if !isClosed && isOnLoopThread {
      try? shutdown()
    }
  }

  /// The loop that owns a raw `uv_loop_t` created by this class.
  static func from(_ raw: UnsafeMutablePointer<uv_loop_t>) -> EventLoop {
    Unmanaged<EventLoop>.fromOpaque(raw.pointee.data!).takeUnretainedValue()
  }

  /// Whether the caller runs on the loop thread. Thread-safe.
  package var isOnLoopThread: Bool {
    pthread_equal(pthread_self(), thread) != 0
  }

  /// Debug-build check for loop-thread-only methods; free in release builds.
  @inline(__always)
  func assertOnLoopThread(_ function: StaticString = #function) {
    assert(isOnLoopThread, "\(function) must be called on the loop thread")
  }

  /// A clock whose sleeps are `uv_timer_t`s on this loop.
  package var clock: LoopClock { LoopClock(loop: self) }

  /// Runs blocking work on libuv's thread pool and resumes on this loop.
  package var threadPool: ThreadPool { ThreadPool(loop: self) }

  /// Runs the loop until nothing keeps it alive or `stop()` is called.
  ///
  /// uv_run can return while another thread has just enqueued a job (the executor's wake-up
  /// handle is unreferenced while its queue looked empty), so the queue is checked after every
  /// uv_run and the loop resumed rather than returning with runnable jobs.
  package func run() {
    precondition(isOnLoopThread, "EventLoop.run() must be called on the thread that created it")
    precondition(!isClosed, "EventLoop.run() after shutdown()")
    repeat {
      uv_run(raw, UV_RUN_DEFAULT)
    } while !stopRequested && executor.referenceIfPending()
    stopRequested = false
  }

  /// Makes `run()` return after the current loop iteration. Thread-safe.
  package func stop() {
    guard isOnLoopThread else {
      execute { [self] in stop() }
      return
    }
    stopRequested = true
    uv_stop(raw)
  }

  /// Runs `body` on the loop thread soon, after the jobs already queued. Thread-safe.
  ///
  /// Bodies submitted after `shutdown()` are dropped.
  package func execute(_ body: @escaping @Sendable () -> Void) {
    executor.enqueue(body)
  }

  /// Closes every handle still open, runs the loop until their close callbacks ran, and closes
  /// the loop. Loop thread only; the loop cannot be used afterwards.
  ///
  /// Owners of this module's handles hear about the close (pending sleeps throw
  /// `CancellationError`); tasks resumed that way run before the executor closes. Handles opened
  /// by other code are closed without a callback, so their memory is leaked rather than freed
  /// twice: close them before calling this. Queued writes are discarded; call
  /// `StdoutWriter.flushSynchronously()` first. Running thread-pool work is waited for.
  package func shutdown() throws(LoopError) {
    precondition(isOnLoopThread, "EventLoop.shutdown() must be called on the loop thread")
    guard !isClosed else { return }
    isShuttingDown = true
    while true {
      let open = openHandles()
      if open.isEmpty && !executor.hasPendingJobs { break }
      for handle in open {
        if ownedHandles[UnsafeMutableRawPointer(handle)] != nil {
          closeHandle(handle)
        } else {
          uv_close(handle, nil)
        }
      }
      _ = executor.referenceIfPending()
      uv_run(raw, UV_RUN_DEFAULT)
    }
    executor.close()
    uv_run(raw, UV_RUN_DEFAULT)
    try LoopError.check(uv_loop_close(raw), "uv_loop_close")
    isClosed = true
    raw.deallocate()
  }

  /// Handles that are neither closing nor the executor's own wake-up handle.
  private func openHandles() -> [UnsafeMutablePointer<uv_handle_t>] {
    var found: [UnsafeMutablePointer<uv_handle_t>] = []
    withUnsafeMutablePointer(to: &found) { uv_walk(raw, collectHandle, $0) }
    return found.filter { uv_is_closing($0) == 0 && !executor.owns($0) }
  }
}

/// uv_walk callback: appends each handle to the array `arg` points to.
private func collectHandle(
  _ handle: UnsafeMutablePointer<uv_handle_t>?, _ arg: UnsafeMutableRawPointer?
) {
  arg!.assumingMemoryBound(to: [UnsafeMutablePointer<uv_handle_t>].self).pointee.append(handle!)
}

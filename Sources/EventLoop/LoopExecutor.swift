import CLibUV
import Glibc
import Locks

/// Runs Swift jobs on the loop thread: the serial executor of loop-bound actors and the task
/// executor of effect tasks (`Task(executorPreference: loop.executor)`).
///
/// `enqueue` is thread-safe: it queues the job under a lock and wakes the loop through a
/// `uv_async_t`, whose callback drains the queue on the loop thread. The wake-up handle keeps
/// the loop alive only while jobs are queued, so an idle executor never prevents `run()` from
/// returning.
package final class LoopExecutor: SerialExecutor, TaskExecutor, LoopHandleOwner,
  @unchecked Sendable
{
  /// Work queued for the loop thread: a Swift job or an `EventLoop.execute` body.
  private enum Item {
    case job(UnownedJob)
    case body(@Sendable () -> Void)
  }

  /// How many items one drain may run before yielding to I/O; the rest run in the next
  /// iteration, after a re-signal.
  static let maxItemsPerDrain = 10_000

  private let thread: pthread_t
  private let lock = Lock()
  /// Guarded by `lock`.
  private var queue: [Item] = []
  /// Guarded by `lock`: a drain is signalled or running and will see anything queued now.
  private var wakeScheduled = false
  /// Guarded by `lock`: `close()` ran; jobs are dropped and `wakeup` must not be signalled.
  private var isClosed = false

  /// The wake-up handle; written on the loop thread, signalled under `lock`.
  private var wakeup: UnsafeMutablePointer<uv_async_t>?
  /// Loop thread only: the batch being run, kept to reuse its storage.
  private var batch: [Item] = []
  /// Loop thread only: whether `wakeup` currently keeps the loop alive.
  private var isReferenced = false

  init(thread: pthread_t) {
    self.thread = thread
  }

  /// Opens the wake-up handle; called once by `EventLoop.init` on the loop thread.
  func attach(to loop: EventLoop) {
    do {
      wakeup = try loop.openHandle(uv_async_t.self, owner: self, operation: "uv_async_init") {
        uv_async_init(loop.raw, $0, drainExecutor)
      }
    } catch {
      // Fails only when no file descriptor is left for the eventfd: nothing can work then.
      fatalError("LoopExecutor: \(error)")
    }
    uv_unref(uvHandle(wakeup!))
  }

  package func enqueue(_ job: consuming ExecutorJob) {
    enqueue(.job(UnownedJob(job)))
  }

  func enqueue(_ body: @escaping @Sendable () -> Void) {
    enqueue(.body(body))
  }

  private func enqueue(_ item: Item) {
    let accepted = lock.withLock {
      if isClosed { return false }
      queue.append(item)
      if !wakeScheduled {
        wakeScheduled = true
        // Signalled under the lock so that `close()` cannot free the handle in between.
        uv_async_send(wakeup)
      }
      return true
    }
    if accepted && pthread_equal(pthread_self(), thread) != 0 && !isReferenced {
      setReferenced(true)
    }
  }

  /// Whether jobs are queued and not yet running. Thread-safe.
  package var hasPendingJobs: Bool {
    lock.withLock { !queue.isEmpty }
  }

  package func checkIsolated() {
    precondition(
      pthread_equal(pthread_self(), thread) != 0,
      "Expected to run on the event loop thread")
  }

  package func isIsolatingCurrentContext() -> Bool? {
    pthread_equal(pthread_self(), thread) != 0
  }

  /// Runs queued items on the loop thread (the async callback).
  ///
  /// Items queued while draining run in the same drain, until `maxItemsPerDrain` items ran;
  /// the rest go back to the front of the queue and the handle is signalled again, so that the
  /// loop polls for I/O before continuing.
  fileprivate func drain() {
    let serialExecutor = asUnownedSerialExecutor()
    let taskExecutor = asUnownedTaskExecutor()
    var budget = Self.maxItemsPerDrain
    while true {
      let hasWork = lock.withLock {
        if queue.isEmpty {
          wakeScheduled = false
          return false
        }
        swap(&queue, &batch)
        return true
      }
      guard hasWork else {
        setReferenced(false)
        return
      }
      var index = 0
      while index < batch.count && budget > 0 {
        switch batch[index] {
        case .job(let job):
          job.runSynchronously(isolatedTo: serialExecutor, taskExecutor: taskExecutor)
        case .body(let body):
          body()
        }
        index += 1
        budget -= 1
      }
      if budget == 0 {
        let more = lock.withLock {
          queue.insert(contentsOf: batch[index...], at: 0)
          if queue.isEmpty {
            wakeScheduled = false
            return false
          }
          uv_async_send(wakeup)
          return true
        }
        batch.removeAll(keepingCapacity: true)
        setReferenced(more)
        return
      }
      batch.removeAll(keepingCapacity: batch.capacity <= Self.maxItemsPerDrain)
    }
  }

  /// Keeps the loop alive if jobs are queued; `EventLoop.run()` asks after each uv_run.
  func referenceIfPending() -> Bool {
    let pending = hasPendingJobs
    if pending { setReferenced(true) }
    return pending
  }

  private func setReferenced(_ referenced: Bool) {
    guard referenced != isReferenced, let wakeup else { return }
    isReferenced = referenced
    if referenced {
      uv_ref(uvHandle(wakeup))
    } else {
      uv_unref(uvHandle(wakeup))
    }
  }

  /// Whether `handle` is the wake-up handle, which `shutdown()` closes last.
  func owns(_ handle: UnsafeMutablePointer<uv_handle_t>) -> Bool {
    wakeup.map { uvHandle($0) == handle } ?? false
  }

  /// Drops queued jobs and closes the wake-up handle; the last step of `EventLoop.shutdown()`.
  func close() {
    lock.withLock {
      isClosed = true
      queue.removeAll()
    }
    if let wakeup {
      EventLoop.from(wakeup.pointee.loop).closeHandle(wakeup)
    }
  }

  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    wakeup = nil
    isReferenced = false
  }
}

/// The wake-up handle's callback.
private func drainExecutor(_ handle: UnsafeMutablePointer<uv_async_t>?) {
  handleOwner(handle, as: LoopExecutor.self).drain()
}

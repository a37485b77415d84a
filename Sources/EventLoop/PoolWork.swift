import CLibUV

/// What the C callbacks of `uv_queue_work` see of a `PoolWork`, whatever its value type.
private protocol PoolJob: AnyObject {
  func perform()
  func complete(status: Int32)
}

/// One `ThreadPool.run` call: its `uv_work_t` request and the continuation it resumes once.
///
/// Loop-side state (submission, cancellation, completion) is touched on the loop thread only;
/// the pool thread writes `outcome`, which libuv hands over to the loop thread under its own
/// lock before the after-work callback runs. The request keeps the object alive from submission
/// to that callback.
final class PoolWork<Value: Sendable>: PoolJob, @unchecked Sendable {
  private let loop: EventLoop
  private let flag = CancellationFlag()
  private let work: @Sendable (CancellationFlag) throws -> Value
  private let request = UnsafeMutablePointer<uv_work_t>.allocate(capacity: 1)
  private var continuation: UnsafeContinuation<Value, any Error>?
  private var outcome: Result<Value, any Error>?
  private var isQueued = false

  init(loop: EventLoop, work: @escaping @Sendable (CancellationFlag) throws -> Value) {
    self.loop = loop
    self.work = work
  }

  deinit {
    request.deallocate()
  }

  /// Queues the work; hops to the loop thread first if needed.
  func submit(_ continuation: UnsafeContinuation<Value, any Error>) {
    guard loop.isOnLoopThread else {
      loop.execute { [self] in submit(continuation) }
      return
    }
    if flag.isCancelled || loop.isShuttingDown {
      continuation.resume(throwing: CancellationError())
      return
    }
    request.pointee.data = Unmanaged.passRetained(self as AnyObject).toOpaque()
    let rc = uv_queue_work(loop.raw, request, performPoolWork, completePoolWork)
    if rc < 0 {
      Unmanaged<AnyObject>.fromOpaque(request.pointee.data).release()
      continuation.resume(throwing: LoopError(code: rc, operation: "uv_queue_work"))
      return
    }
    self.continuation = continuation
    isQueued = true
    loop.poolWorkInFlight += 1
  }

  /// From the task's cancellation handler, on any thread.
  ///
  /// The flag tells running work to stop; `uv_cancel` (loop thread only) removes work that has
  /// not started yet, and the after-work callback then reports `UV_ECANCELED`.
  func cancel() {
    flag.cancel()
    guard loop.isOnLoopThread else {
      loop.execute { [self] in cancel() }
      return
    }
    if isQueued {
      uv_cancel(UnsafeMutableRawPointer(request).assumingMemoryBound(to: uv_req_t.self))
    }
  }

  fileprivate func perform() {
    outcome = Result { try work(flag) }
  }

  fileprivate func complete(status: Int32) {
    isQueued = false
    loop.poolWorkInFlight -= 1
    guard let continuation else { return }
    self.continuation = nil
    if status == UV_ECANCELED.rawValue {
      continuation.resume(throwing: CancellationError())
    } else {
      continuation.resume(with: outcome!)
    }
  }
}

private func performPoolWork(_ request: UnsafeMutablePointer<uv_work_t>?) {
  poolJob(request).perform()
}

private func completePoolWork(_ request: UnsafeMutablePointer<uv_work_t>?, _ status: Int32) {
  let job = poolJob(request)
  Unmanaged<AnyObject>.fromOpaque(request!.pointee.data).release()
  job.complete(status: status)
}

private func poolJob(_ request: UnsafeMutablePointer<uv_work_t>?) -> any PoolJob {
  Unmanaged<AnyObject>.fromOpaque(request!.pointee.data).takeUnretainedValue() as! any PoolJob
}

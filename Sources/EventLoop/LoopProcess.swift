import CLibUV
import Glibc

/// What a child process printed on its standard output, and how it ended.
package struct ProcessResult: Equatable, Sendable {
  package enum Termination: Equatable, Sendable {
    /// It exited with this status.
    case exited(Int64)
    /// A signal ended it.
    case signaled(Int32)
  }

  package var output: [UInt8]
  package var termination: Termination

  package init(output: [UInt8], termination: Termination) {
    self.output = output
    self.termination = termination
  }
}

extension EventLoop {
  /// Runs `program` (a path, or a name looked up in `PATH`) with `arguments` and returns
  /// everything it printed on standard output once it has exited and closed it. Its standard
  /// input is `/dev/null`, its standard error this process's; `argumentZero` (default: the
  /// program) is the name it sees itself started as.
  ///
  /// Throws a `LoopError` naming the program when it cannot be started (`ENOENT` for a missing
  /// one). On task cancellation the child is killed and this throws `CancellationError`, as it
  /// does when the loop shuts down first (the child is killed then too). Callable from any
  /// thread; the child's handles live on the loop.
  package func runProcess(
    _ program: String, arguments: [String] = [], argumentZero: String? = nil
  ) async throws -> ProcessResult {
    try Task.checkCancellation()
    let process = LoopProcess(
      loop: self, program: program, arguments: [argumentZero ?? program] + arguments)
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        process.start(continuation)
      }
    } onCancel: {
      process.cancel()
    }
  }

  /// How many processes or threads can run at once here: the CPUs this process may use.
  package static var availableParallelism: Int {
    Int(uv_available_parallelism())
  }
}

/// One `runProcess` call: a `uv_process_t`, the `uv_pipe_t` its standard output comes through,
/// and the continuation resumed exactly once, when both the exit and the end of the output
/// arrived (they come in either order).
///
/// All state lives on the loop thread; `start` and `cancel` hop there first, like `LoopSleep`.
/// The process handle stays open until the child exited: libuv reaps only the children of open
/// handles.
final class LoopProcess: LoopStreamReader, @unchecked Sendable {
  private let loop: EventLoop
  private let program: String
  /// The child's whole argument vector, its name first.
  private let arguments: [String]
  private var pipe: UnsafeMutablePointer<uv_pipe_t>?
  /// Set once the child runs.
  private var process: UnsafeMutablePointer<uv_process_t>?
  private var pid: Int32 = 0
  private var continuation: UnsafeContinuation<ProcessResult, any Error>?
  private var output: [UInt8] = []
  private var termination: ProcessResult.Termination?
  private var reachedEnd = false
  private var isCancelled = false
  let readBuffer = UnsafeMutableRawBufferPointer.allocate(
    byteCount: 64 * 1024, alignment: 16)

  init(loop: EventLoop, program: String, arguments: [String]) {
    self.loop = loop
    self.program = program
    self.arguments = arguments
  }

  deinit {
    readBuffer.deallocate()
  }

  func start(_ continuation: UnsafeContinuation<ProcessResult, any Error>) {
    guard loop.isOnLoopThread else {
      loop.execute { [self] in start(continuation) }
      return
    }
    if isCancelled || loop.isShuttingDown {
      continuation.resume(throwing: CancellationError())
      return
    }
    self.continuation = continuation
    do {
      try spawn()
    } catch {
      fail(error)
    }
  }

  private func spawn() throws(LoopError) {
    let pipe = try loop.openHandle(uv_pipe_t.self, owner: self, operation: "uv_pipe_init") {
      uv_pipe_init(loop.raw, $0, 0)
    }
    self.pipe = pipe
    var stdio = [uv_stdio_container_t](repeating: uv_stdio_container_t(), count: 3)
    stdio[0].flags = UV_IGNORE
    stdio[1].flags = uv_stdio_flags(UV_CREATE_PIPE.rawValue | UV_WRITABLE_PIPE.rawValue)
    stdio[1].data.stream = uvStream(pipe)
    stdio[2].flags = UV_INHERIT_FD
    stdio[2].data.fd = 2
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var rc: Int32 = 0
    let process = try loop.openHandle(uv_process_t.self, owner: self, operation: "uv_spawn") {
      handle in
      rc = stdio.withUnsafeMutableBufferPointer { stdio in
        argv.withUnsafeMutableBufferPointer { argv in
          program.withCString { file in
            var options = uv_process_options_t()
            options.exit_cb = processExited
            options.file = file
            options.args = argv.baseAddress
            options.stdio_count = Int32(stdio.count)
            options.stdio = stdio.baseAddress
            return uv_spawn(loop.raw, handle, &options)
          }
        }
      }
      // uv_spawn initializes the handle even when it fails: it must be closed either way.
      return 0
    }
    if rc < 0 {
      loop.closeHandle(process)
      throw LoopError(code: rc, operation: "uv_spawn \(program)")
    }
    self.process = process
    pid = process.pointee.pid
    try LoopError.check(uvReadStart(uvStream(pipe), reader: self), "uv_read_start")
  }

  func cancel() {
    guard loop.isOnLoopThread else {
      loop.execute { [self] in cancel() }
      return
    }
    isCancelled = true
    kill()
  }

  private func kill() {
    if let process, termination == nil { uv_process_kill(process, SIGKILL) }
  }

  fileprivate func exited(status: Int64, signal: Int32) {
    termination = signal != 0 ? .signaled(signal) : .exited(status)
    if let process { loop.closeHandle(process) }
    finishIfDone()
  }

  func didRead(_ count: Int) {
    guard count < 0 else {
      output += readBuffer[..<count]
      return
    }
    reachedEnd = true
    if let pipe { loop.closeHandle(pipe) }
    if count == Int(UV_EOF.rawValue) {
      finishIfDone()
    } else {
      fail(LoopError(code: Int32(count), operation: "read the output of \(program)"))
    }
  }

  private func finishIfDone() {
    guard reachedEnd, let termination else { return }
    if isCancelled {
      resume(with: .failure(CancellationError()))
    } else {
      resume(with: .success(ProcessResult(output: output, termination: termination)))
    }
  }

  /// Nobody reads the child's output any more: it is killed rather than left to block on it.
  private func fail(_ error: any Error) {
    kill()
    if let pipe { loop.closeHandle(pipe) }
    resume(with: .failure(error))
  }

  private func resume(with result: Result<ProcessResult, any Error>) {
    guard let continuation else { return }
    self.continuation = nil
    continuation.resume(with: result)
  }

  /// Also reached when `EventLoop.shutdown()` closes the handles of a child still running: it is
  /// killed then, as nothing would reap it any more.
  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    if let pipe, uvHandle(pipe) == handle {
      self.pipe = nil
      if !reachedEnd { fail(CancellationError()) }
    } else if let process, uvHandle(process) == handle {
      self.process = nil
      if termination == nil {
        uv_kill(pid, SIGKILL)
        fail(CancellationError())
      }
    }
  }
}

private func processExited(
  _ process: UnsafeMutablePointer<uv_process_t>?, _ status: Int64, _ signal: Int32
) {
  handleOwner(process, as: LoopProcess.self).exited(status: status, signal: signal)
}

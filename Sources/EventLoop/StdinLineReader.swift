import CLibUV

/// Reads a descriptor (standard input by default) and calls back once per line, on the loop
/// thread.
///
/// How it reads depends on what the descriptor is: a pipe or socket is watched by epoll through
/// a private descriptor, a terminal through `uv_tty_t`, and a regular file or `/dev/null` with
/// `uv_fs_read` on the thread pool (epoll cannot watch files).
///
/// Lines are cut at LF; a CR before the LF is dropped. Empty lines are skipped but counted, so
/// `lineNumber` is the physical line of the input (the first is 1). A last line without LF is
/// delivered at end of input. A line longer than `maxLineBytes` is not delivered and not kept in
/// memory: `onOverlongLine` reports it once, when it ends, and reading goes on with the next.
///
/// Loop thread only: create it, set the callbacks, then `start()`.
public final class StdinLineReader: @unchecked Sendable {
  /// A line, without its line ending. The bytes are valid only during the call: usually a slice
  /// of the read buffer itself (no copy).
  public var onLine: @Sendable (_ line: UnsafeRawBufferPointer, _ lineNumber: Int) -> Void = {
    _, _ in
  }
  /// A line that was too long and was skipped; `bytesSeen` is its length without the LF.
  public var onOverlongLine: @Sendable (_ lineNumber: Int, _ bytesSeen: Int) -> Void = { _, _ in }
  /// End of input; the reader is closed afterwards.
  public var onEnd: @Sendable () -> Void = {}
  /// A read error, followed by `onEnd` (a partial last line is dropped).
  public var onError: @Sendable (_ message: String) -> Void = { _ in }

  /// The longest line delivered, in bytes without its line ending.
  public let maxLineBytes: Int
  /// `close()` was called or the input ended; no callback comes any more.
  public private(set) var isClosed = false

  private let loop: EventLoop
  private let splitter: LineSplitter
  private var source: (any LineSource)?

  /// Size of each read; lines are usually cut straight out of this buffer.
  static let readBufferSize = 64 * 1024

  public init(loop: EventLoop, fd: Int32 = 0, maxLineBytes: Int = 1_048_576) throws(LoopError) {
    loop.assertOnLoopThread()
    self.loop = loop
    self.maxLineBytes = maxLineBytes
    splitter = LineSplitter(maxLineBytes: maxLineBytes)
    switch try StdioKind(fd: fd, operation: "StdinLineReader") {
    case .pipe:
      source = try StreamLineSource(loop: loop, pipe: fd, reader: self)
    case .tty:
      source = try StreamLineSource(loop: loop, tty: fd, reader: self)
    case .file:
      source = FileLineSource(loop: loop, fd: fd, reader: self)
    }
  }

  public func start() {
    loop.assertOnLoopThread()
    source?.start()
  }

  /// Stops reading until `resume()`, for back-pressure. Lines already read (at most one read
  /// buffer) are still delivered.
  public func pause() {
    loop.assertOnLoopThread()
    source?.pause()
  }

  public func resume() {
    loop.assertOnLoopThread()
    source?.resume()
  }

  /// Stops for good; may be called from a callback, and then no further line of the current
  /// buffer is delivered. The callbacks are released, as they often capture the reader.
  public func close() {
    loop.assertOnLoopThread()
    isClosed = true
    source?.close()
    source = nil
    onLine = { _, _ in }
    onOverlongLine = { _, _ in }
    onEnd = {}
    onError = { _ in }
  }

  // MARK: Called by the source

  func consume(_ chunk: UnsafeRawBufferPointer) {
    _ = splitter.split(chunk, deliver)
  }

  func reachedEnd() {
    splitter.finish(deliver)
    if !isClosed {
      onEnd()
      close()
    }
  }

  func failed(_ error: LoopError) {
    guard !isClosed else { return }
    onError(error.description)
    if !isClosed {
      onEnd()
      close()
    }
  }

  private func deliver(_ piece: LineSplitter.Piece) -> Bool {
    guard !isClosed else { return false }
    switch piece {
    case .line(let bytes, let number):
      onLine(bytes, number)
    case .overlong(let number, let bytes):
      onOverlongLine(number, bytes)
    }
    return !isClosed
  }
}

/// Where a `StdinLineReader` gets its bytes: a stream handle or file reads.
protocol LineSource: AnyObject {
  func start()
  func pause()
  func resume()
  func close()
}

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
/// `pause()` takes effect at once, even from `onLine`: no line comes until `resume()`. The rest
/// of a read the pause cut short is kept (the source reads nothing more meanwhile, so that is at
/// most one read buffer) and delivered first after `resume()`, in order, with the same line
/// numbers.
///
/// Loop thread only: create it, set the callbacks, then `start()`.
package final class StdinLineReader: @unchecked Sendable {
  /// A line, without its line ending. The bytes are valid only during the call: usually a slice
  /// of the read buffer itself (no copy).
  package var onLine: @Sendable (_ line: UnsafeRawBufferPointer, _ lineNumber: Int) -> Void = {
    _, _ in
  }
  /// A line that was too long and was skipped; `bytesSeen` is its length without the LF.
  package var onOverlongLine: @Sendable (_ lineNumber: Int, _ bytesSeen: Int) -> Void = { _, _ in }
  /// End of input; the reader is closed afterwards.
  package var onEnd: @Sendable () -> Void = {}
  /// A read error, followed by `onEnd` (a partial last line is dropped).
  package var onError: @Sendable (_ message: String) -> Void = { _ in }

  /// The longest line delivered, in bytes without its line ending.
  package let maxLineBytes: Int
  /// `close()` was called or the input ended; no callback comes any more.
  package private(set) var isClosed = false

  private let loop: EventLoop
  private let splitter: LineSplitter
  private var source: (any LineSource)?
  private var isPaused = false
  /// Bytes read but not split yet, because a pause cut their read short or came before it. They
  /// lie in the source's buffer, which it does not reuse until it is resumed.
  private var held = UnsafeRawBufferPointer(start: nil, count: 0)
  /// How the input ended, when it ended while paused: it comes after the held lines.
  private var heldEnding: Ending?
  private var isDeliveryScheduled = false

  private enum Ending {
    case end
    case failure(LoopError)
  }

  /// Size of each read; lines are usually cut straight out of this buffer.
  static let readBufferSize = 64 * 1024

  package init(loop: EventLoop, fd: Int32 = 0, maxLineBytes: Int = 1_048_576) throws(LoopError) {
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

  package func start() {
    loop.assertOnLoopThread()
    source?.start()
  }

  /// Delivers nothing more until `resume()`: for back-pressure, and while the host waits for
  /// something the next lines must come after. Called from `onLine`, the lines after that one
  /// wait too.
  package func pause() {
    loop.assertOnLoopThread()
    guard !isPaused else { return }
    isPaused = true
    source?.pause()
  }

  /// Delivers the held lines, in a loop job of their own (the caller may be in the middle of
  /// something the next line must not interrupt), then reads on.
  package func resume() {
    loop.assertOnLoopThread()
    guard isPaused else { return }
    isPaused = false
    if held.isEmpty && heldEnding == nil {
      source?.resume()
    } else if !isDeliveryScheduled {
      isDeliveryScheduled = true
      loop.execute { [self] in deliverHeld() }
    }
  }

  /// Stops for good; may be called from a callback, and then no further line of the current
  /// buffer is delivered. The callbacks are released, as they often capture the reader.
  package func close() {
    loop.assertOnLoopThread()
    isClosed = true
    source?.close()
    source = nil
    held = UnsafeRawBufferPointer(start: nil, count: 0)
    heldEnding = nil
    onLine = { _, _ in }
    onOverlongLine = { _, _ in }
    onEnd = {}
    onError = { _ in }
  }

  // MARK: Called by the source

  /// `chunk` must stay as it is until the source is resumed: what a pause leaves of it is kept.
  func consume(_ chunk: UnsafeRawBufferPointer) {
    assert(held.isEmpty, "a source read while the reader held bytes of its buffer")
    let taken = isPaused ? 0 : splitter.split(chunk, deliver)
    if !isClosed && taken < chunk.count {
      held = UnsafeRawBufferPointer(rebasing: chunk[taken...])
    }
  }

  func reachedEnd() {
    end(.end)
  }

  func failed(_ error: LoopError) {
    end(.failure(error))
  }

  private func end(_ ending: Ending) {
    guard !isClosed else { return }
    // When the last line pauses, the end waits, and finishing again then finds no line.
    if case .end = ending, !isPaused { splitter.finish(deliver) }
    guard !isClosed else { return }
    guard !isPaused else {
      heldEnding = ending
      return
    }
    if case .failure(let error) = ending { onError(error.description) }
    if !isClosed {
      onEnd()
      close()
    }
  }

  private func deliverHeld() {
    isDeliveryScheduled = false
    guard !isPaused, !isClosed else { return }
    let chunk = held
    held = UnsafeRawBufferPointer(start: nil, count: 0)
    consume(chunk)
    guard !isPaused, !isClosed else { return }
    if let ending = heldEnding {
      heldEnding = nil
      end(ending)
    } else {
      source?.resume()
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
    return !isClosed && !isPaused
  }
}

/// Where a `StdinLineReader` gets its bytes: a stream handle or file reads.
///
/// A paused source reads nothing into its buffer (a read already under way may still complete),
/// so the bytes last handed to the reader stay as they are until `resume()`. Both calls may
/// repeat.
protocol LineSource: AnyObject {
  func start()
  func pause()
  func resume()
  func close()
}

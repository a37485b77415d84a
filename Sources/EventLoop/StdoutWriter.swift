import CLibUV
import Glibc

/// Buffers output lines and writes them to a descriptor (standard output by default) once per
/// loop iteration.
///
/// Appends go to a pending buffer; a check handle flushes it with one write right after the
/// loop's poll phase, so a burst of lines becomes one write and a lone line leaves at the end
/// of the iteration that produced it. Pipes, sockets and terminals are written asynchronously
/// with `uv_write`; regular files and character devices such as `/dev/null` with blocking
/// `write(2)` (epoll cannot watch them, and they do not block for long).
///
/// Back-pressure: when the bytes waiting (`waitingBytes`: pending, queued, and those the host
/// gathered for its next `append`) rise above `highWaterMark`, `onBackpressure` gets `true`;
/// once they fall to `lowWaterMark`, `false`. The host pauses and resumes its input with it, so
/// a slow reader bounds memory instead of filling it.
///
/// A write error (EPIPE when the reader went away, with SIGPIPE ignored: see
/// `SignalWatcher.ignoreSIGPIPE()`) calls `onClosed` once; later appends are dropped.
///
/// Loop thread only.
package final class StdoutWriter: @unchecked Sendable {
  /// `true` when the buffered output passed the high-water mark, `false` when it drained back.
  package var onBackpressure: @Sendable (_ isBackpressured: Bool) -> Void = { _ in }
  /// The output failed (``LoopError/isPeerGone`` when its reader went away); called once, and
  /// the writer is then closed.
  package var onClosed: @Sendable (_ error: LoopError) -> Void = { _ in }
  /// Called right before each flush, after the loop's poll phase, for a host that batches its
  /// own output and hands it over here with `append`. While set, the flush check runs in every
  /// loop iteration (it still never keeps the loop alive).
  package var willFlush: (@Sendable () -> Void)? {
    didSet {
      loop.assertOnLoopThread()
      if willFlush != nil && !isClosed { flushCheck?.start() }
    }
  }

  package let highWaterMark: Int
  package let lowWaterMark: Int
  /// Bytes a host that batches its own output has gathered and not appended yet. It sets this as
  /// it gathers (after each input line, say), so that its input stops before it hands them over;
  /// each `append` takes its bytes off.
  package var gatheredBytes: Int {
    get { gathered }
    set {
      loop.assertOnLoopThread()
      gathered = newValue
      updateBackpressure()
    }
  }
  /// Bytes the descriptor accepted.
  package private(set) var writtenBytes = 0
  /// Write operations issued (`uv_write` calls or synchronous flushes), for tests and stats.
  package private(set) var writeCount = 0
  package private(set) var isBackpressured = false
  /// After an error, `flushSynchronously()` or `close()`: appends are dropped.
  package private(set) var isClosed = false

  private enum Output {
    case stream(StreamOutput)
    case file(Int32)
  }

  private let loop: EventLoop
  private var gathered = 0
  private var pending = OutputBuffer()
  private var output: Output?
  private var flushCheck: LoopCheck?
  private var pollNudge: LoopIdle?
  /// While `willFlush` runs.
  private var isFlushing = false

  package init(
    loop: EventLoop, fd: Int32 = 1, highWaterMark: Int = 1_048_576, lowWaterMark: Int = 262_144
  ) throws(LoopError) {
    loop.assertOnLoopThread()
    precondition(lowWaterMark <= highWaterMark, "lowWaterMark above highWaterMark")
    self.loop = loop
    self.highWaterMark = highWaterMark
    self.lowWaterMark = lowWaterMark
    switch try StdioKind(fd: fd, operation: "StdoutWriter") {
    case .pipe: output = .stream(try StreamOutput(loop: loop, pipe: fd, writer: self))
    case .tty: output = .stream(try StreamOutput(loop: loop, tty: fd, writer: self))
    case .file: output = .file(fd)
    }
    do {
      flushCheck = try LoopCheck(loop: loop) { [self] in flush() }
      pollNudge = try LoopIdle(loop: loop)
    } catch {
      closeHandles()
      throw error
    }
  }

  /// Pending bytes plus bytes queued in libuv.
  package var bufferedBytes: Int {
    guard case .stream(let stream) = output else { return pending.count }
    return pending.count + stream.queuedBytes
  }

  /// What back-pressure is measured on: the bytes buffered and the host's gathered ones.
  package var waitingBytes: Int {
    gathered + bufferedBytes
  }

  package func append(_ bytes: UnsafeRawBufferPointer) {
    loop.assertOnLoopThread()
    guard !isClosed, !bytes.isEmpty else { return }
    // A batch handed over from `willFlush` with nothing before it leaves now, from its host's
    // memory: copying it into `pending` first was 170 instructions a counter line.
    if isFlushing && pending.count == 0 {
      gathered = max(0, gathered - bytes.count)
      write(bytes)
      return
    }
    if pending.count == 0 {
      flushCheck?.start()
      pollNudge?.start()
    }
    gathered = max(0, gathered - bytes.count)
    pending.append(bytes)
    if !isBackpressured && waitingBytes > highWaterMark {
      setBackpressure(true)
    }
  }

  package func append(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { append($0) }
  }

  package func append(_ bytes: ArraySlice<UInt8>) {
    bytes.withUnsafeBytes { append($0) }
  }

  package func append(_ string: String) {
    var string = string
    string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
  }

  /// Writes everything pending or queued with blocking writes, then closes the writer; for exit,
  /// so that the last lines are not lost. Append the last line first.
  package func flushSynchronously() {
    loop.assertOnLoopThread()
    guard !isClosed, let output else { return }
    do {
      let written: Int
      switch output {
      case .stream(let stream):
        written = try stream.writeRemainingSynchronously(then: pending.bytes)
      case .file(let fd):
        try writeFully(fd, pending.bytes)
        written = pending.count
      }
      writtenBytes += written
      if written > 0 { writeCount += 1 }
      close()
    } catch {
      fail(error)
    }
  }

  /// Stops writing; pending bytes are dropped and queued ones abandoned. The callbacks are
  /// released, as they often capture the writer.
  package func close() {
    loop.assertOnLoopThread()
    finish(error: nil)
  }

  // MARK: Loop side

  /// The check callback: one write for everything appended since the last flush.
  private func flush() {
    isFlushing = true
    willFlush?()
    isFlushing = false
    // After `willFlush`, whose appends would have started them again.
    if willFlush == nil { flushCheck?.stop() }
    pollNudge?.stop()
    guard !isClosed, pending.count > 0, let output else { return }
    writeCount += 1
    switch output {
    case .stream(let stream):
      do {
        writtenBytes += try stream.write(&pending)
      } catch {
        fail(error)
        return
      }
    case .file(let fd):
      do {
        try writeFully(fd, pending.bytes)
      } catch {
        fail(error)
        return
      }
      writtenBytes += pending.count
      pending.removeAll()
    }
    updateBackpressure()
  }

  /// One write of bytes that stay the caller's; what the descriptor does not take at once is
  /// copied and written later.
  private func write(_ bytes: UnsafeRawBufferPointer) {
    guard let output else { return }
    writeCount += 1
    do {
      switch output {
      case .stream(let stream):
        writtenBytes += try stream.write(bytes)
      case .file(let fd):
        try writeFully(fd, bytes)
        writtenBytes += bytes.count
      }
    } catch {
      fail(error)
      return
    }
    updateBackpressure()
  }

  func didWrite(byteCount: Int) {
    writtenBytes += byteCount
    updateBackpressure()
  }

  func fail(_ error: LoopError) {
    finish(error: error)
  }

  private func finish(error: LoopError?) {
    guard !isClosed else { return }
    isClosed = true
    pending.removeAll()
    closeHandles()
    // Nothing will drain any more, and a paused input must not wait for it.
    if isBackpressured { setBackpressure(false) }
    if let error { onClosed(error) }
    onBackpressure = { _ in }
    onClosed = { _ in }
    willFlush = nil
  }

  private func updateBackpressure() {
    let waiting = waitingBytes
    if isBackpressured && waiting <= lowWaterMark {
      setBackpressure(false)
    } else if !isBackpressured && waiting > highWaterMark {
      setBackpressure(true)
    }
  }

  private func setBackpressure(_ on: Bool) {
    isBackpressured = on
    onBackpressure(on)
  }

  private func closeHandles() {
    if case .stream(let stream) = output { stream.close() }
    flushCheck?.close()
    pollNudge?.close()
  }
}

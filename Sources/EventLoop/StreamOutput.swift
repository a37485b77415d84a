import CLibUV
import Glibc

/// Writes to a pipe, socket or terminal with `uv_write`, for `StdoutWriter`.
///
/// Each write owns its bytes until libuv calls back. The writes still in flight are kept in
/// order, so that `writeRemainingSynchronously` can find the bytes libuv has not written yet:
/// libuv writes requests in order, so those are the last `write_queue_size` bytes.
final class StreamOutput: LoopHandleOwner {
  /// One `uv_write` in flight: `bytes`, the part of the malloc'd `memory` not written yet.
  private final class Write {
    let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
    let memory: UnsafeMutableRawPointer
    let bytes: UnsafeMutableRawBufferPointer

    init(memory: UnsafeMutableRawPointer, bytes: UnsafeMutableRawBufferPointer) {
      self.memory = memory
      self.bytes = bytes
    }

    deinit {
      request.deallocate()
      free(memory)
    }
  }

  private let loop: EventLoop
  private var writer: StdoutWriter?
  private var stream: UnsafeMutablePointer<uv_stream_t>?
  private var inFlight: [Write] = []
  /// Notices the reader of a pipe or socket going away while nothing is written.
  private var hangUpWatch: HangUpWatch?

  /// Writes a pipe or socket through a private descriptor (see `openPrivateDescriptor`), and
  /// watches it for its reader going away (see `HangUpWatch`): that fails the writer with
  /// `EPIPE` as a write would, without waiting for one.
  init(loop: EventLoop, pipe fd: Int32, writer: StdoutWriter) throws(LoopError) {
    self.loop = loop
    self.writer = writer
    let stream = try loop.openStdioPipe(
      fd, flags: O_WRONLY, owner: self, operation: "open stdout")
    self.stream = stream
    var descriptor: uv_os_fd_t = -1
    do {
      try LoopError.check(uv_fileno(uvHandle(stream), &descriptor), "uv_fileno")
      hangUpWatch = try HangUpWatch(loop: loop, watching: descriptor) { [weak self] in
        self?.writer?.fail(LoopError(code: UV_EPIPE.rawValue, operation: "poll stdout"))
      }
    } catch {
      loop.closeHandle(stream)
      throw error
    }
  }

  /// Writes a terminal.
  init(loop: EventLoop, tty fd: Int32, writer: StdoutWriter) throws(LoopError) {
    self.loop = loop
    self.writer = writer
    stream = try loop.openStdioTTY(fd, readable: false, owner: self)
  }

  /// Bytes libuv has accepted but not written yet.
  var queuedBytes: Int {
    stream.map { uv_stream_get_write_queue_size($0) } ?? 0
  }

  /// Writes what the stream takes of `buffer` at once, and starts writing the rest with
  /// `uv_write`, which takes its memory; `buffer` is left empty. Returns the bytes written now.
  ///
  /// A host that keeps up takes each flush whole: the write request, the handover of the
  /// buffer's memory (and a new one for the next lines) and the callback in the next loop
  /// iteration were a tenth of a round trip's instructions. `uv_try_write` writes nothing while
  /// requests are queued, so the bytes stay in order.
  func write(_ buffer: inout OutputBuffer) throws(LoopError) -> Int {
    let written = try writeNow(buffer.bytes)
    if written == buffer.count {
      buffer.removeAll()
      return written
    }
    try queue(buffer.take(), from: written)
    return written
  }

  /// Writes what the stream takes of `bytes` at once, and starts writing a copy of the rest
  /// with `uv_write`: for bytes whose memory stays the caller's. Returns the bytes written now.
  func write(_ bytes: UnsafeRawBufferPointer) throws(LoopError) -> Int {
    let written = try writeNow(bytes)
    if written < bytes.count {
      var rest = OutputBuffer()
      rest.append(UnsafeRawBufferPointer(rebasing: bytes[written...]))
      try queue(rest.take(), from: 0)
    }
    return written
  }

  /// `uv_try_write`: the bytes the stream took (none while requests are queued).
  private func writeNow(_ bytes: UnsafeRawBufferPointer) throws(LoopError) -> Int {
    guard let stream else { throw LoopError(code: UV_EBADF.rawValue, operation: "write") }
    var whole = uv_buf_init(
      UnsafeMutableRawPointer(mutating: bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
      UInt32(bytes.count))
    let rc = uv_try_write(stream, &whole, 1)
    if rc < 0 && rc != UV_EAGAIN.rawValue { throw LoopError(code: rc, operation: "write") }
    return max(0, Int(rc))
  }

  /// Starts writing `taken[offset...]` with `uv_write`, which frees `taken` when done.
  private func queue(_ taken: UnsafeMutableRawBufferPointer, from offset: Int) throws(LoopError) {
    guard let stream else {
      free(taken.baseAddress)
      throw LoopError(code: UV_EBADF.rawValue, operation: "write")
    }
    let write = Write(
      memory: taken.baseAddress!, bytes: UnsafeMutableRawBufferPointer(rebasing: taken[offset...]))
    var rest = uv_buf_init(
      write.bytes.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(write.bytes.count))
    write.request.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    let queued = uv_write(write.request, stream, &rest, 1, streamDidWrite)
    try LoopError.check(queued, "uv_write")
    inFlight.append(write)
  }

  fileprivate func didWrite(_ request: UnsafeMutablePointer<uv_write_t>, status: Int32) {
    let write = inFlight.removeFirst()
    precondition(write.request == request, "uv_write callbacks out of order")
    guard let writer else { return }
    if status == 0 {
      writer.didWrite(byteCount: write.bytes.count)
    } else if status != UV_ECANCELED.rawValue {
      writer.fail(LoopError(code: status, operation: "write"))
    }
  }

  /// Writes what libuv still holds, then `extra`, with blocking writes; for exit.
  ///
  /// libuv would write the same bytes again if the loop ran on, so this closes the stream: its
  /// queued requests end with `UV_ECANCELED`. Returns how many bytes of those requests and of
  /// `extra` are now written, counting any part libuv wrote before.
  func writeRemainingSynchronously(then extra: UnsafeRawBufferPointer) throws(LoopError) -> Int {
    guard let stream else { return 0 }
    var fd: uv_os_fd_t = -1
    try LoopError.check(uv_fileno(uvHandle(stream), &fd), "uv_fileno")
    var alreadyWritten = inFlight.reduce(0) { $0 + $1.bytes.count } - queuedBytes
    var total = 0
    for write in inFlight {
      let skip = min(alreadyWritten, write.bytes.count)
      alreadyWritten -= skip
      if skip == write.bytes.count { continue }  // written; its callback reports it
      try writeFully(fd, UnsafeRawBufferPointer(rebasing: write.bytes[skip...]))
      total += write.bytes.count  // its callback will say cancelled, part written or not

    }
    try writeFully(fd, extra)
    total += extra.count
    close()
    return total
  }

  func close() {
    hangUpWatch?.close()
    hangUpWatch = nil
    if let stream { loop.closeHandle(stream) }
  }

  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    stream = nil
    writer = nil
  }
}

private func streamDidWrite(_ request: UnsafeMutablePointer<uv_write_t>?, _ status: Int32) {
  let output = Unmanaged<StreamOutput>.fromOpaque(request!.pointee.data).takeUnretainedValue()
  output.didWrite(request!, status: status)
}

/// Writes all of `bytes` to `fd`, waiting with `poll` whenever a non-blocking descriptor is full.
package func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(LoopError) {
  var offset = 0
  while offset < bytes.count {
    let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
    if written >= 0 {
      offset += written
      continue
    }
    switch errno {
    case EINTR:
      continue
    case EAGAIN:
      var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      _ = poll(&descriptor, 1, -1)
    default:
      throw LoopError(code: -errno, operation: "write")
    }
  }
}

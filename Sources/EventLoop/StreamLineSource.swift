import CLibUV
import Glibc

/// Reads a pipe, socket or terminal with `uv_read_start` into one reused buffer.
///
/// The buffer can be reused because the reader consumes each read before returning from the
/// callback. While the handle is open it keeps this source alive, and the source its reader.
final class StreamLineSource: LineSource, LoopStreamReader {
  private let loop: EventLoop
  private var reader: StdinLineReader?
  private var stream: UnsafeMutablePointer<uv_stream_t>?
  let readBuffer = UnsafeMutableRawBufferPointer.allocate(
    byteCount: StdinLineReader.readBufferSize, alignment: 16)
  private var isStarted = false
  private var isPaused = false

  /// Reads a pipe or socket through a private descriptor (see `openPrivateDescriptor`).
  /// Reads a pipe or socket through a private descriptor.
  init(loop: EventLoop, pipe fd: Int32, reader: StdinLineReader) throws(LoopError) {
    self.loop = loop
    self.reader = reader
    stream = try loop.openStdioPipe(fd, flags: O_RDONLY, owner: self, operation: "open stdin")
  }

  /// Reads a terminal.
  init(loop: EventLoop, tty fd: Int32, reader: StdinLineReader) throws(LoopError) {
    self.loop = loop
    self.reader = reader
    stream = try loop.openStdioTTY(fd, readable: true, owner: self)
  }

  deinit {
    readBuffer.deallocate()
  }

  func start() {
    isStarted = true
    startReading()
  }

  func pause() {
    isPaused = true
    if let stream { uv_read_stop(stream) }
  }

  /// uv_read_start fails on a stream that is reading already.
  func resume() {
    guard isPaused else { return }
    isPaused = false
    startReading()
  }

  private func startReading() {
    guard isStarted, !isPaused, let stream else { return }
    let rc = uvReadStart(stream, reader: self)
    if rc < 0 { reader?.failed(LoopError(code: rc, operation: "uv_read_start")) }
  }

  func close() {
    if let stream { loop.closeHandle(stream) }
  }

  func didRead(_ count: Int) {
    guard let reader else { return }
    if count > 0 {
      reader.consume(UnsafeRawBufferPointer(rebasing: readBuffer[..<count]))
    } else if count == Int(UV_EOF.rawValue) {
      reader.reachedEnd()
    } else if count < 0 {
      reader.failed(LoopError(code: Int32(count), operation: "read"))
    }
  }

  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    stream = nil
    reader = nil
  }
}

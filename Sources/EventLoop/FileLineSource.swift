import CLibUV
import Glibc

/// Reads a regular file or character device with `uv_fs_read` at the current offset, one
/// request at a time (epoll cannot watch these descriptors).
///
/// Pausing simply does not issue the next read. The descriptor is not owned: reading with offset
/// -1 advances the shared file position, as reading standard input should.
final class FileLineSource: LineSource {
  private let loop: EventLoop
  private let fd: Int32
  private var reader: StdinLineReader?
  private let request = UnsafeMutablePointer<uv_fs_t>.allocate(capacity: 1)
  private let buffer = UnsafeMutableRawBufferPointer.allocate(
    byteCount: StdinLineReader.readBufferSize, alignment: 16)
  private var isStarted = false
  private var isPaused = false
  private var isReading = false

  init(loop: EventLoop, fd: Int32, reader: StdinLineReader) {
    self.loop = loop
    self.fd = fd
    self.reader = reader
  }

  deinit {
    request.deallocate()
    buffer.deallocate()
  }

  func start() {
    isStarted = true
    readNext()
  }

  func pause() {
    isPaused = true
  }

  func resume() {
    isPaused = false
    readNext()
  }

  /// A read in flight cannot be withdrawn; its result is dropped when it completes.
  func close() {
    reader = nil
  }

  private func readNext() {
    guard isStarted, !isPaused, !isReading, let reader else { return }
    var slice = uv_buf_init(
      buffer.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(buffer.count))
    // The request keeps this source (and its buffer) alive until the callback.
    request.pointee.data = Unmanaged.passRetained(self).toOpaque()
    let rc = uv_fs_read(loop.raw, request, fd, &slice, 1, -1, fileDidRead)
    if rc < 0 {
      Unmanaged.passUnretained(self).release()
      reader.failed(LoopError(code: rc, operation: "uv_fs_read"))
      return
    }
    isReading = true
  }

  fileprivate func didRead() {
    let count = request.pointee.result
    uv_fs_req_cleanup(request)
    isReading = false
    // Shutdown waits for this request; the host must not hear about lines any more.
    guard let reader, !loop.isShuttingDown else { return }
    if count > 0 {
      reader.consume(UnsafeRawBufferPointer(rebasing: buffer[..<Int(count)]))
      readNext()
    } else if count == 0 {
      reader.reachedEnd()
    } else {
      reader.failed(LoopError(code: Int32(count), operation: "read"))
    }
  }
}

private func fileDidRead(_ request: UnsafeMutablePointer<uv_fs_t>?) {
  Unmanaged<FileLineSource>.fromOpaque(request!.pointee.data).takeRetainedValue().didRead()
}

import CLibUV

/// The owner of a uv handle opened with `EventLoop.openHandle`.
///
/// The loop keeps the owner alive (in `EventLoop.ownedHandles`) until libuv has finished closing
/// its handle, so no callback can reach a freed owner. The owner learns that the handle
/// is gone through `handleClosed`, also when `EventLoop.shutdown()` closed it behind its back.
protocol LoopHandleOwner: AnyObject {
  /// Called from the close callback, right before the handle's memory is freed: forget it.
  func handleClosed(_ handle: UnsafeMutablePointer<uv_handle_t>)
}

/// The owner of a stream handle that reads into one buffer of its own, reused for every read:
/// each read is consumed before its callback returns.
protocol LoopStreamReader: LoopHandleOwner {
  var readBuffer: UnsafeMutableRawBufferPointer { get }
  /// Bytes read into `readBuffer`, 0 for none this time, or a libuv error (`UV_EOF` at the end).
  func didRead(_ count: Int)
}

/// What the loop keeps of a handle opened with `EventLoop.openHandle`: its owner, and the reader
/// of a stream being read.
///
/// Both are existentials made where the owner's type is known at compile time. Casting the
/// object in `handle.data` to the protocol instead made the runtime scan every conformance
/// record of the binary once per owner type: a million instructions for the handles an empty
/// run closes, and 176,000 on its first read.
struct OwnedHandle {
  let owner: any LoopHandleOwner
  var reader: (any LoopStreamReader)?
}

/// `uv_read_start` on a stream opened with `EventLoop.openHandle`, read by `reader`.
func uvReadStart(_ stream: UnsafeMutablePointer<uv_stream_t>, reader: some LoopStreamReader)
  -> Int32
{
  EventLoop.from(stream.pointee.loop).ownedHandles[UnsafeMutableRawPointer(stream)]?.reader =
    reader
  return uv_read_start(stream, allocateReadBuffer, streamDidRead)
}

private func streamReader(_ handle: UnsafeMutablePointer<some Any>?) -> any LoopStreamReader {
  let handle = uvHandle(handle!)
  return EventLoop.from(handle.pointee.loop).ownedHandles[UnsafeMutableRawPointer(handle)]!
    .reader!
}

private func allocateReadBuffer(
  _ handle: UnsafeMutablePointer<uv_handle_t>?, _ suggestedSize: Int,
  _ buffer: UnsafeMutablePointer<uv_buf_t>?
) {
  let readBuffer = streamReader(handle).readBuffer
  buffer!.pointee = uv_buf_init(
    readBuffer.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(readBuffer.count))
}

private func streamDidRead(
  _ stream: UnsafeMutablePointer<uv_stream_t>?, _ count: Int, _ buffer: UnsafePointer<uv_buf_t>?
) {
  streamReader(stream).didRead(count)
}

/// Views a concrete handle (`uv_timer_t`, `uv_pipe_t`, ...) as the `uv_handle_t` it starts with.
func uvHandle<Handle>(_ handle: UnsafeMutablePointer<Handle>) -> UnsafeMutablePointer<uv_handle_t> {
  UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self)
}

/// Views a stream handle (`uv_pipe_t`, `uv_tty_t`) as the `uv_stream_t` it starts with.
func uvStream<Handle>(_ handle: UnsafeMutablePointer<Handle>) -> UnsafeMutablePointer<uv_stream_t> {
  UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_stream_t.self)
}

/// The owner stored in a handle opened with `EventLoop.openHandle`, without touching its count.
func handleOwner<Owner: AnyObject>(_ handle: UnsafeMutablePointer<some Any>?, as _: Owner.Type)
  -> Owner
{
  let data = uvHandle(handle!).pointee.data!
  return Unmanaged<Owner>.fromOpaque(data).takeUnretainedValue()
}

extension EventLoop {
  /// Allocates a handle, lets `initialize` run its `uv_*_init`, and ties it to `owner`.
  ///
  /// Every handle of this module is opened here so that `shutdown()` can tell our handles (whose
  /// owners must hear about the close) from foreign ones, which it closes without a callback.
  func openHandle<Handle>(
    _: Handle.Type, owner: some LoopHandleOwner, operation: String,
    initialize: (UnsafeMutablePointer<Handle>) -> Int32
  ) throws(LoopError) -> UnsafeMutablePointer<Handle> {
    assertOnLoopThread()
    if isShuttingDown { throw LoopError(code: UV_ECANCELED.rawValue, operation: operation) }
    let handle = UnsafeMutablePointer<Handle>.allocate(capacity: 1)
    let rc = initialize(handle)
    if rc < 0 {
      // A failed uv_*_init leaves nothing on the loop, so the memory is ours to free now.
      handle.deallocate()
      throw LoopError(code: rc, operation: operation)
    }
    uvHandle(handle).pointee.data = Unmanaged.passUnretained(owner as AnyObject).toOpaque()
    ownedHandles[UnsafeMutableRawPointer(handle)] = OwnedHandle(owner: owner)
    return handle
  }

  /// Starts closing a handle opened with `openHandle`; its memory is freed in the close callback.
  func closeHandle<Handle>(_ handle: UnsafeMutablePointer<Handle>) {
    assertOnLoopThread()
    let base = uvHandle(handle)
    if uv_is_closing(base) == 0 {
      uv_close(base, closeOwnedHandle)
    }
  }
}

/// The one close callback of this module's handles: tell the owner, drop it, free the memory.
private func closeOwnedHandle(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
  guard let handle else { return }
  let owned = EventLoop.from(handle.pointee.loop).ownedHandles.removeValue(
    forKey: UnsafeMutableRawPointer(handle))!
  handle.pointee.data = nil
  owned.owner.handleClosed(handle)
  UnsafeMutableRawPointer(handle).deallocate()
}

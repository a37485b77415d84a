/// Joins the chunks lws hands over into whole messages, enforcing the size limit and UTF-8: a
/// text message fails at the chunk holding its first invalid byte, before the rest arrives.
///
/// lws delivers a message as a sequence of chunks: a frame may arrive in several reads, and a
/// message may span several frames (fragments). A message is complete after the chunk that ends
/// its final fragment (`lws_is_final_fragment` with nothing left of the frame,
/// `lws_remaining_packet_payload` = 0). Control frames never reach this type.
struct MessageAssembler {
  enum Outcome: Equatable {
    case incomplete
    case message(WebSocketMessage)
    /// The message broke a rule; the socket must close with the error's code.
    case failure(WebSocketError)
  }

  let limit: Int
  private var buffer: [UInt8] = []
  private var isText = false
  private var utf8 = UTF8Validator()
  private var isInMessage = false

  init(limit: Int) {
    self.limit = limit
  }

  /// Adds one chunk. `isBinary` describes the message (lws keeps the first frame's opcode for
  /// its continuations); `remainingInFrame` is what is still to come of the current frame, which
  /// lets an oversized message fail before it is buffered.
  mutating func append(
    _ chunk: UnsafeRawBufferPointer, isBinary: Bool, isFinalFragment: Bool, remainingInFrame: Int
  ) -> Outcome {
    if !isInMessage {
      isInMessage = true
      isText = !isBinary
      utf8 = UTF8Validator()
    }
    guard fits(buffer.count + chunk.count, andFrameRemainder: remainingInFrame) else {
      reset()
      return .failure(.messageTooBig(limit: limit))
    }
    let isLast = isFinalFragment && remainingInFrame == 0
    if isText && !(utf8.consume(chunk) && (!isLast || utf8.isAtCharacterBoundary)) {
      reset()
      return .failure(.invalidUTF8)
    }
    buffer.append(contentsOf: chunk)
    guard isLast else { return .incomplete }
    defer { reset() }
    return .message(isText ? .text(String(decoding: buffer, as: UTF8.self)) : .binary(buffer))
  }

  /// Whether the frame lws is reading, `remainingInFrame` bytes short of its end, still fits
  /// the message: a frame header announcing more than the limit fails before any of its payload
  /// arrives, where lws would hand over the first chunk only once its buffer is full.
  func fitsFrame(remainingInFrame: Int) -> Bool {
    fits(buffer.count, andFrameRemainder: remainingInFrame)
  }

  /// `remainingInFrame` is lws's `size_t`, up to 2^63 - 1: added to a count, it would overflow.
  private func fits(_ count: Int, andFrameRemainder remainingInFrame: Int) -> Bool {
    remainingInFrame <= limit - count
  }

  private mutating func reset() {
    buffer = []
    isInMessage = false
  }
}

import CWebSockets

/// What a socket still has to write, handed out one frame per writable callback (lws allows
/// one `lws_write` per callback).
///
/// Pings go first: control frames may sit between the fragments of a message, so a ping never
/// waits behind a large message. Messages follow in order, cut into fragments of at most
/// `fragmentSize` bytes so that one socket's large message neither monopolises the loop nor
/// makes lws buffer megabytes. The close frame goes last, after everything queued before it.
struct OutgoingQueue {
  /// One frame to write.
  enum Frame {
    case ping([UInt8])
    /// `flags` are the `lws_write_protocol` value; `completion` is set on a message's last
    /// fragment and is resumed once lws took it.
    case fragment(ArraySlice<UInt8>, flags: lws_write_protocol, completion: Completion?)
    case close(code: Int, reason: [UInt8])
  }

  typealias Completion = CheckedContinuation<Void, any Error>

  private struct PendingMessage {
    let bytes: [UInt8]
    let isText: Bool
    let completion: Completion?
    var offset = 0
  }

  let fragmentSize: Int
  private var pings: [[UInt8]] = []
  private var messages: [PendingMessage] = []
  /// Index of the first unsent message; the array is compacted now and then instead of
  /// shifting on every removal.
  private var head = 0
  private var closeFrame: (code: Int, reason: [UInt8])?

  init(fragmentSize: Int) {
    self.fragmentSize = fragmentSize
  }

  var isEmpty: Bool {
    pings.isEmpty && head == messages.count && closeFrame == nil
  }

  mutating func enqueue(_ message: WebSocketMessage, completion: Completion?) {
    switch message {
    case .text(let text):
      messages.append(PendingMessage(bytes: Array(text.utf8), isText: true, completion: completion))
    case .binary(let bytes):
      messages.append(PendingMessage(bytes: bytes, isText: false, completion: completion))
    }
  }

  mutating func enqueuePing(_ payload: [UInt8]) {
    pings.append(payload)
  }

  /// Queues the close frame; later messages are refused by the socket, not by this queue.
  mutating func enqueueClose(code: Int, reason: [UInt8]) {
    if closeFrame == nil { closeFrame = (code, reason) }
  }

  mutating func next() -> Frame? {
    if !pings.isEmpty {
      return .ping(pings.removeFirst())
    }
    if head < messages.count {
      return nextFragment()
    }
    if let closeFrame {
      self.closeFrame = nil
      return .close(code: closeFrame.code, reason: closeFrame.reason)
    }
    return nil
  }

  private mutating func nextFragment() -> Frame {
    let message = messages[head]
    let start = message.offset
    let end = min(start + fragmentSize, message.bytes.count)
    let isLast = end == message.bytes.count
    let initial = message.isText ? LWS_WRITE_TEXT : LWS_WRITE_BINARY
    let flags = lws_write_ws_flags(
      Int32(initial.rawValue), start == 0 ? 1 : 0, isLast ? 1 : 0)
    let bytes = message.bytes[start..<end]
    if isLast {
      head += 1
      if head == messages.count || head > 64 && head * 2 > messages.count {
        messages.removeFirst(head)
        head = 0
      }
    } else {
      messages[head].offset = end
    }
    return .fragment(
      bytes, flags: lws_write_protocol(rawValue: UInt32(flags)),
      completion: isLast ? message.completion : nil)
  }

  /// Empties the queue, failing every message not completely written yet.
  mutating func failAll(with error: WebSocketError) {
    for message in messages[head...] {
      message.completion?.resume(throwing: error)
    }
    messages = []
    head = 0
    pings = []
    closeFrame = nil
  }
}

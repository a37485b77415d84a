import CWebSockets
import CWebSocketsShim

/// One socket: its lws connection, its event and message streams, what it still has to write
/// and the pings waiting for their pong.
///
/// Owned by `WebSocketClient` and used only in its isolation (the loop thread), both from the
/// client's methods and from lws callbacks. The `wsi` is touched only while lws has not started
/// closing it, so no call ever reaches a connection lws is about to free.
final class WebSocketConnection {
  enum State {
    case connecting, open, closing, closed
  }

  typealias Received = Result<WebSocketMessage, WebSocketError>

  /// The key of `opaque_user_data`: lws callbacks find the connection by it, and a late callback
  /// for a connection already forgotten finds nothing.
  let token: Int
  /// The id the caller opened it under.
  let key: AnyHashable
  let url: WebSocketURL
  let protocols: [String]
  private(set) var state = State.connecting
  /// The lws connection of the current connect attempt, to tell its callbacks from a failed
  /// attempt's.
  private(set) var attempt: OpaquePointer?
  /// The same connection while lws has not started closing it: the one this class calls lws on.
  private var wsi: OpaquePointer?
  /// Addresses not tried yet, best first.
  private var addresses: [String] = []
  /// Whether the current attempt got as far as sending the handshake: a failure after that is
  /// the server's answer, not a reason to try another address.
  private var reachedServer = false
  /// lws's reason for the last failed attempt.
  private(set) var connectError: String?
  /// Why the current attempt's certificate was refused.
  private var certificateError: String?
  /// The subprotocol in the server's handshake response.
  var selectedProtocol: String?
  var connectTask: Task<Void, Never>?
  var timeoutTask: Task<Void, Never>?

  private var assembler: MessageAssembler
  private var outgoing: OutgoingQueue
  private let events: AsyncStream<WebSocketEvent>.Continuation
  private var receiver: (serial: Int, continuation: AsyncStream<Received>.Continuation)?
  /// Messages that arrived while nobody was receiving: `didOpen` and the first message can
  /// arrive in the same read, before the caller had a chance to call `receive`.
  private var undelivered: [Received] = []
  /// Bytes of the messages handed to the receiver's stream (or kept for the next receiver) that
  /// it has not taken yet; over `maximumWaitingBytes`, the socket stops reading.
  private var waitingBytes = 0
  private let maximumWaitingBytes: Int
  private var isReadingPaused = false
  private var pingWaiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
  private var lastPingID: UInt64 = 0
  /// A received message broke a rule: input is ignored until the socket is gone.
  private var isFailed = false
  /// This side's close frame is out; the peer's answer ends the connection.
  private var isCloseSent = false
  /// Why the socket ends, as first learnt: the close frame we sent or received, the connect
  /// error, the timeout. `didClose` reports it.
  private var ending: (code: Int, reason: String)?

  /// How long lws waits for the peer to answer a close frame before dropping the connection.
  static let closeAckTimeout: Int32 = 5
  /// A close frame's payload is at most 125 bytes, two of them the code.
  static let maximumCloseReasonBytes = 123

  init(
    token: Int, key: AnyHashable, url: WebSocketURL, protocols: [String],
    events: AsyncStream<WebSocketEvent>.Continuation, configuration: WebSocketConfiguration,
    fragmentSize: Int
  ) {
    self.token = token
    self.key = key
    self.url = url
    self.protocols = protocols
    self.events = events
    assembler = MessageAssembler(limit: configuration.maximumMessageSize)
    maximumWaitingBytes = configuration.maximumWaitingBytes
    outgoing = OutgoingQueue(fragmentSize: fragmentSize)
  }

  // MARK: Caller side

  func resolved(_ addresses: [String]) {
    self.addresses = addresses
  }

  /// The address for the next connect attempt, if any is left.
  func nextAddress() -> String? {
    guard state == .connecting, ending == nil, !addresses.isEmpty else { return nil }
    attempt = nil
    reachedServer = false
    certificateError = nil
    return addresses.removeFirst()
  }

  /// Whether the failed current attempt should be followed by one to the next address.
  var shouldTryNextAddress: Bool {
    state == .connecting && ending == nil && !reachedServer && !addresses.isEmpty
  }

  func attach(_ wsi: OpaquePointer) {
    attempt = wsi
    self.wsi = wsi
  }

  /// Makes `continuation` the one receiver, after handing it what arrived before; a previous
  /// receiver's stream ends, and what it had not taken with it.
  func attachReceiver(_ continuation: AsyncStream<Received>.Continuation, serial: Int) {
    receiver?.continuation.finish()
    for message in undelivered { continuation.yield(message) }
    undelivered = []
    if state == .closed {
      continuation.finish()
    } else {
      receiver = (serial, continuation)
    }
  }

  func detachReceiver(serial: Int) {
    guard receiver?.serial == serial else { return }
    receiver = nil
    waitingBytes = 0
    resumeReadingIfDrained()
  }

  /// Receiver `serial` took `message` from its stream.
  func taken(_ message: WebSocketMessage, serial: Int) {
    guard receiver?.serial == serial else { return }
    waitingBytes -= message.byteCount
    resumeReadingIfDrained()
  }

  private func resumeReadingIfDrained() {
    guard isReadingPaused, waitingBytes <= maximumWaitingBytes / 2, let wsi else { return }
    isReadingPaused = false
    _ = cws_lws_rx_flow_control(wsi, 1)
    // lws keeps the rest of the read that the pause cut short, and parses it only when it
    // services the socket again: a writable callback makes it do so without new input.
    cws_lws_callback_on_writable(wsi)
  }

  func send(_ message: WebSocketMessage, completion: OutgoingQueue.Completion) {
    outgoing.enqueue(message, completion: completion)
    requestWritable()
  }

  /// Queues a ping whose payload is its id, and returns the id the pong will carry back.
  func sendPing(_ continuation: CheckedContinuation<Void, any Error>) -> UInt64 {
    lastPingID += 1
    pingWaiters.append((lastPingID, continuation))
    outgoing.enqueuePing(withUnsafeBytes(of: lastPingID.bigEndian, Array.init))
    requestWritable()
    return lastPingID
  }

  func cancelPing(id: UInt64) {
    guard let index = pingWaiters.firstIndex(where: { $0.id == id }) else { return }
    pingWaiters.remove(at: index).continuation.resume(throwing: CancellationError())
  }

  /// Starts the close handshake once everything queued before is written.
  func close(code: Int, reason: String) {
    guard state == .open else { return }
    state = .closing
    let code =
      WebSocketCloseCode.isAllowedInCloseFrame(code) ? code : WebSocketCloseCode.normalClosure
    let reason = Self.truncated(reason, toBytes: Self.maximumCloseReasonBytes)
    ending = ending ?? (code, reason)
    outgoing.enqueueClose(code: code, reason: Array(reason.utf8))
    requestWritable()
  }

  /// Ends the socket without a close handshake: at once when lws has no connection for it
  /// (returns true: the caller must `finish` it), else through lws, which then destroys it.
  /// Never from inside an lws callback.
  func abort(reason: String) -> Bool {
    guard state != .closed else { return false }
    ending = ending ?? (WebSocketCloseCode.abnormalClosure, reason)
    guard let wsi else { return true }
    state = .closing
    self.wsi = nil
    // Synchronously: an asynchronous kill is a zero-delay lws timer, and lws 4.1 re-arms its uv
    // timer only at the end of its own service, so from outside it would wait for the next
    // unrelated event. Callbacks this runs see the state set above.
    cws_lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
    return false
  }

  private func requestWritable() {
    if let wsi { cws_lws_callback_on_writable(wsi) }
  }

  // MARK: lws side

  func didOpen() {
    guard state == .connecting else { return }
    state = .open
    timeoutTask?.cancel()
    events.yield(.didOpen(protocol: selectedProtocol))
  }

  func handshakeSent() {
    reachedServer = true
  }

  func connectionFailed(_ reason: String) {
    let cause = certificateError.map { "TLS certificate rejected: \($0)" } ?? reason
    connectError = "\(url.hostHeader): \(cause)"
  }

  /// OpenSSL refused the server's certificate; the connect error lws reports next says less.
  func certificateRejected(_ reason: String) {
    if certificateError == nil { certificateError = reason }
  }

  /// A chunk of a data frame. A message that breaks a rule fails the socket: the error goes to
  /// the receiver, the rest of the input is dropped and the close frame is written from the next
  /// writable callback. (Returning -1 here instead, in the middle of a frame, makes lws 4.1.6
  /// keep parsing the rest of the frame into a full buffer and corrupt the heap.)
  func received(_ chunk: UnsafeRawBufferPointer, wsi: OpaquePointer) {
    guard !isFailed else { return }
    let outcome = assembler.append(
      chunk, isBinary: cws_lws_frame_is_binary(wsi) != 0,
      isFinalFragment: cws_lws_is_final_fragment(wsi) != 0,
      remainingInFrame: Self.remainingInFrame(wsi))
    switch outcome {
    case .incomplete:
      break
    case .message(let message):
      deliver(.success(message))
    case .failure(let error):
      fail(because: error)
    }
  }

  /// Fails the socket if the frame lws is reading announced more than a message may hold. lws
  /// hands a frame's payload over only when its buffer is full or the frame is complete, so a
  /// peer that announces 2^63 - 1 bytes and sends a few (or none) would otherwise hold the
  /// socket open until it closes; the announced length is known as soon as the header is read.
  func checkFrameBeingRead() {
    guard state == .open, !isFailed, let wsi,
      !assembler.fitsFrame(remainingInFrame: Self.remainingInFrame(wsi))
    else { return }
    fail(because: .messageTooBig(limit: assembler.limit))
  }

  /// What lws still expects of the frame it is reading (while it reads the header's length,
  /// the part of it read so far, which only grows).
  private static func remainingInFrame(_ wsi: OpaquePointer) -> Int {
    Int(clamping: cws_lws_remaining_packet_payload(wsi))
  }

  /// A received message broke a rule: the receiver gets the error, the peer the close code.
  private func fail(because error: WebSocketError) {
    deliver(.failure(error))
    let code =
      error == .invalidUTF8
      ? WebSocketCloseCode.invalidFramePayloadData : WebSocketCloseCode.messageTooBig
    fail(code: code, reason: error.description)
  }

  /// Closes at once with `code`, dropping what was queued and whatever else arrives.
  private func fail(code: Int, reason: String) {
    isFailed = true
    ending = ending ?? (code, reason)
    if state == .open || state == .connecting { state = .closing }
    outgoing.failAll(with: .closed(code: code, reason: reason))
    outgoing.enqueueClose(
      code: code, reason: Array(Self.truncated(reason, toBytes: Self.maximumCloseReasonBytes).utf8))
    requestWritable()
  }

  func pongReceived(_ payload: UnsafeRawBufferPointer) {
    guard payload.count == MemoryLayout<UInt64>.size else { return }
    let id = UInt64(bigEndian: payload.loadUnaligned(as: UInt64.self))
    // A pong answers its ping and, as RFC 6455 allows answering only the latest, earlier ones.
    let answered = pingWaiters.filter { $0.id <= id }
    pingWaiters.removeAll { $0.id <= id }
    for waiter in answered { waiter.continuation.resume() }
  }

  /// The peer's close frame: the start of its close handshake, which lws answers and then
  /// closes, or the answer to ours, after which this returns -1 to make lws close at once.
  ///
  /// A close frame that breaks the rules (a one-byte payload, a code not allowed on the wire, a
  /// reason that is not UTF-8) fails the connection instead: lws would echo it as it is, and
  /// the only way to stop that is -1, which drops the connection at once, so this side's close
  /// frame is written here, before returning.
  func peerClosed(
    _ payload: UnsafeRawBufferPointer, wsi: OpaquePointer, buffer: UnsafeMutableRawBufferPointer
  ) -> Int32 {
    switch ReceivedClose(payload: payload) {
    case .close(let code, let reason):
      ending = ending ?? (code, reason)
      if state == .open { state = .closing }
      return isCloseSent ? -1 : 0
    case .violation(let code, let reason):
      ending = ending ?? (code, reason)
      state = .closing
      writeFailingClose(code: code, reason: reason, wsi: wsi, buffer: buffer)
      return -1
    }
  }

  /// lws has started closing the connection: the wsi must not be used any more, except that a
  /// close frame may still go out on its socket, which lws shuts only after this callback.
  /// `violation` is the protocol error lws found in the server's frames, if that is why it
  /// closes: lws just drops the connection, and RFC 6455 (7.1.7) asks for a 1002 first.
  func lwsClosing(violation: String?, wsi: OpaquePointer, buffer: UnsafeMutableRawBufferPointer) {
    self.wsi = nil
    if state == .open { state = .closing }
    guard let violation, ending == nil else { return }
    ending = (WebSocketCloseCode.protocolError, violation)
    writeFailingClose(
      code: WebSocketCloseCode.protocolError, reason: violation, wsi: wsi, buffer: buffer)
  }

  /// Fails the socket with a close frame written at once, from a callback after which lws drops
  /// the connection, so the frame cannot wait for a writable callback.
  private func writeFailingClose(
    code: Int, reason: String, wsi: OpaquePointer, buffer: UnsafeMutableRawBufferPointer
  ) {
    isFailed = true
    outgoing.failAll(with: .closed(code: code, reason: reason))
    guard !isCloseSent else { return }
    isCloseSent = true
    _ = Self.write(
      Self.closePayload(code: code, reason: reason.utf8)[...], flags: cws_lws_write_close(),
      wsi: wsi, buffer: buffer)
  }

  /// Writes the next frame; one `lws_write` per writable callback. Returns -1 to close.
  func writeNext(wsi: OpaquePointer, buffer: UnsafeMutableRawBufferPointer) -> Int32 {
    guard let frame = outgoing.next() else { return 0 }
    let result: Int32
    switch frame {
    case .ping(let payload):
      result = Self.write(payload[...], flags: LWS_WRITE_PING, wsi: wsi, buffer: buffer)
    case .fragment(let bytes, let flags, let completion):
      result = Self.write(bytes, flags: flags, wsi: wsi, buffer: buffer)
      if result >= 0 {
        completion?.resume()
      } else {
        completion?.resume(
          throwing: WebSocketError.closed(
            code: WebSocketCloseCode.abnormalClosure, reason: "the write failed"))
      }
    case .close(let code, let reason):
      // Written by hand rather than with lws_close_reason and a -1 return: Debian's lws 4.1.6 is
      // built with _DEBUG, whose "uv repeat test" closes twice and kills the connection before
      // the close frame goes out. The peer's answering close frame then ends the connection
      // (see `peerClosed`), or lws's timeout does.
      let payload = Self.closePayload(code: code, reason: reason)
      result = Self.write(payload[...], flags: cws_lws_write_close(), wsi: wsi, buffer: buffer)
      if result >= 0 {
        isCloseSent = true
        cws_lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, Self.closeAckTimeout)
      }
    }
    if result < 0 { return -1 }
    if !outgoing.isEmpty { cws_lws_callback_on_writable(wsi) }
    return 0
  }

  /// Ends the socket: reports `didClose`, ends both streams and fails whatever still waits.
  func finish() {
    guard state != .closed else { return }
    let wasOpen = state != .connecting
    state = .closed
    wsi = nil
    attempt = nil
    connectTask?.cancel()
    timeoutTask?.cancel()
    let (code, reason) =
      ending
      ?? (
        WebSocketCloseCode.abnormalClosure,
        wasOpen
          ? "the connection closed without a close frame"
          : connectError ?? "cannot connect to \(url.hostHeader)"
      )
    let error = WebSocketError.closed(code: code, reason: reason)
    outgoing.failAll(with: error)
    let waiters = pingWaiters
    pingWaiters = []
    for waiter in waiters { waiter.continuation.resume(throwing: error) }
    receiver?.continuation.finish()
    receiver = nil
    events.yield(.didClose(code: code, reason: reason))
    events.finish()
  }

  private func deliver(_ message: Received) {
    if case .success(let delivered) = message {
      waitingBytes += delivered.byteCount
      if waitingBytes > maximumWaitingBytes && !isReadingPaused, let wsi {
        isReadingPaused = true
        _ = cws_lws_rx_flow_control(wsi, 0)
      }
    }
    if let receiver {
      receiver.continuation.yield(message)
    } else {
      undelivered.append(message)
    }
  }

  private static func write(
    _ bytes: ArraySlice<UInt8>, flags: lws_write_protocol, wsi: OpaquePointer,
    buffer: UnsafeMutableRawBufferPointer
  ) -> Int32 {
    let start = buffer.baseAddress!.advanced(by: cws_lws_pre())
    UnsafeMutableRawBufferPointer(start: start, count: bytes.count).copyBytes(from: bytes)
    return cws_lws_write(wsi, start.assumingMemoryBound(to: UInt8.self), bytes.count, flags)
  }

  /// A close frame's payload: the code, big-endian, then the reason's bytes.
  private static func closePayload(code: Int, reason: some Sequence<UInt8>) -> [UInt8] {
    [UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)] + reason
  }

  /// `text` cut to at most `limit` UTF-8 bytes, at a character boundary.
  static func truncated(_ text: String, toBytes limit: Int) -> String {
    guard text.utf8.count > limit else { return text }
    var result = ""
    for character in text {
      if result.utf8.count + character.utf8.count > limit { break }
      result.append(character)
    }
    return result
  }
}

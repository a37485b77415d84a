import CWebSockets
import CWebSocketsShim
import EventLoop

/// RFC 6455 WebSocket client sockets (ws and wss) on the product's libuv loop, several at once,
/// each under an id of the caller's choosing: the shape of TCA's `WebSocketClient`.
///
/// ```swift
/// for await event in await client.open(id: Feed.id, url: "wss://example.com/feed") {
///   switch event {
///   case .didOpen:
///     try await client.send(id: Feed.id, message: .text("subscribe"))
///     // in a child task: for await result in await client.receive(id: Feed.id) { ... }
///   case .didClose(let code, let reason):
///     print("closed", code, reason)
///   }
/// }
/// ```
///
/// Ids are any `Hashable & Sendable` value; ids of different types never collide. The actor
/// runs on the loop's executor, so stores (which run there too) call it without a thread hop,
/// and libwebsockets' callbacks enter it with `assumeIsolated`.
///
/// The libwebsockets context is created by the first `open` and destroyed when no socket has
/// been left for `WebSocketConfiguration.idleContextLifetime`, so a process that never uses
/// WebSockets pays nothing (it does not even load libwebsockets and OpenSSL) and an idle client
/// lets the loop end. When the libraries cannot be loaded, each socket reports why in its
/// `didClose` reason. Call `shutdown()` before `EventLoop.shutdown()` unless the loop ended by
/// itself.
package actor WebSocketClient {
  package let configuration: WebSocketConfiguration
  private let loop: EventLoop
  private let resolver: Resolver
  /// Sockets by the caller's id; one leaves when it ends, or when its id is reused or its event
  /// stream is cancelled (it may then still be closing, in `connections` only).
  private var sockets: [AnyHashable: WebSocketConnection] = [:]
  /// Every socket that has not ended, by token.
  private var connections: [Int: WebSocketConnection] = [:]
  private var lastToken = 0
  private var lastReceiverSerial = 0
  private var context = ContextState.none
  /// Made with the first lws context and shared by all of them.
  private var tls: TLSClientContext?
  /// Loading `tls`'s trust anchors, started by the first wss socket; its outcome is kept.
  private var trustLoading: Task<Void, any Error>?
  /// Waits out `idleContextLifetime` after the last socket ended, then tears the context down.
  private var idleTeardown: Task<Void, Never>?
  /// `open`s and `shutdown` waiting for a context teardown to finish.
  private var teardownWaiters: [CheckedContinuation<Void, Never>] = []
  /// `shutdown` waiting for the last socket to end.
  private var drainWaiters: [CheckedContinuation<Void, Never>] = []
  private var isShutDown = false
  /// After each poll of the loop while sockets are open, checks the frame each is reading
  /// (``WebSocketConnection/checkFrameBeingRead()``); closed with the context, so that an idle
  /// client leaves no handle on the loop.
  private var frameCheck: LoopCheck?
  /// lws_write's buffer, shared by all sockets: `LWS_PRE` bytes of headroom, then a fragment.
  private let writeBuffer = WriteBuffer(byteCount: cws_lws_pre() + fragmentSize)

  private enum ContextState {
    case none
    case live(LWSContext)
    case destroying
  }

  /// Outgoing messages are cut into fragments of this size.
  static let fragmentSize = 64 * 1024
  /// How many milliseconds a teardown waits for lws's handles to close (they take one or two
  /// loop iterations) before it gives up and leaks the context.
  static let teardownChecks = 5_000

  package init(loop: EventLoop, configuration: WebSocketConfiguration = WebSocketConfiguration()) {
    self.init(loop: loop, configuration: configuration, resolver: HostResolver.addresses)
  }

  /// Turns a host name into the addresses to try, best first.
  typealias Resolver = @Sendable (_ host: String, _ loop: EventLoop) async throws -> [String]

  /// With the resolver replaced, which tests use to reach the address fallback.
  init(loop: EventLoop, configuration: WebSocketConfiguration, resolver: @escaping Resolver) {
    self.loop = loop
    self.configuration = configuration
    self.resolver = resolver
  }

  package nonisolated var unownedExecutor: UnownedSerialExecutor {
    loop.executor.asUnownedSerialExecutor()
  }

  // MARK: The TCA-shaped interface

  /// Connects to `url` (ws or wss), offering `protocols` as subprotocols, and returns the
  /// socket's events: `didOpen`, then `didClose`, then the end of the stream.
  ///
  /// Cancelling the task that iterates the stream closes the socket (1000, or an abort while
  /// still connecting), as cancelling TCA's connect effect does. Opening an id that is in use
  /// closes the socket it named first (1001).
  package func open<ID: Hashable & Sendable>(id: ID, url: String, protocols: [String] = [])
    -> AsyncStream<WebSocketEvent>
  {
    let key = AnyHashable(id)
    if let previous = sockets.removeValue(forKey: key) {
      end(previous, code: WebSocketCloseCode.goingAway, reason: "replaced by a new socket")
    }
    let (events, continuation) = AsyncStream.makeStream(of: WebSocketEvent.self)
    guard !isShutDown else {
      continuation.yield(
        .didClose(
          code: WebSocketCloseCode.abnormalClosure, reason: "the WebSocket client is shut down"))
      continuation.finish()
      return events
    }
    guard let target = WebSocketURL(url) else {
      continuation.yield(
        .didClose(
          code: WebSocketCloseCode.abnormalClosure, reason: "not a ws:// or wss:// URL: \(url)"))
      continuation.finish()
      return events
    }
    lastToken += 1
    let token = lastToken
    let connection = WebSocketConnection(
      token: token, key: key, url: target, protocols: protocols, events: continuation,
      configuration: configuration, fragmentSize: Self.fragmentSize)
    continuation.onTermination = { [loop] termination in
      guard case .cancelled = termination else { return }
      loop.execute { self.assumeIsolated { $0.abandon(token: token) } }
    }
    sockets[key] = connection
    connections[token] = connection
    idleTeardown?.cancel()
    idleTeardown = nil
    connection.timeoutTask = onLoop { [loop, configuration] in
      do {
        try await loop.clock.sleep(for: configuration.connectTimeout)
      } catch {
        return
      }
      await self.abort(token: token, reason: "timed out after \(configuration.connectTimeout)")
    }
    connection.connectTask = onLoop { await self.resolveAndConnect(token: token) }
    return events
  }

  /// The messages of socket `id`, from those that arrived before this call on. One receiver at
  /// a time: a new call ends the previous stream. Failures (`invalidUTF8`, `messageTooBig`) are
  /// delivered before the socket closes; the stream ends when the socket does, at once for an
  /// unknown id.
  ///
  /// The socket stops reading while more than `WebSocketConfiguration.maximumWaitingBytes` of
  /// messages wait to be taken from the stream, so a receiver that falls behind slows the
  /// server down (through TCP) rather than making the process hold everything it sent.
  package func receive<ID: Hashable & Sendable>(id: ID)
    -> AsyncStream<Result<WebSocketMessage, WebSocketError>>
  {
    let (messages, continuation) = AsyncStream.makeStream(
      of: Result<WebSocketMessage, WebSocketError>.self)
    guard let connection = sockets[AnyHashable(id)] else {
      continuation.finish()
      return messages
    }
    lastReceiverSerial += 1
    let serial = lastReceiverSerial
    let token = connection.token
    continuation.onTermination = { [loop] termination in
      guard case .cancelled = termination else { return }
      loop.execute {
        self.assumeIsolated { $0.connections[token]?.detachReceiver(serial: serial) }
      }
    }
    connection.attachReceiver(continuation, serial: serial)
    let taken = AsyncIteratorBox(messages.makeAsyncIterator())
    return AsyncStream { [loop] in
      let message = await taken.next()
      if case .success(let received)? = message {
        loop.execute {
          self.assumeIsolated { $0.connections[token]?.taken(received, serial: serial) }
        }
      }
      return message
    }
  }

  /// Sends `message` and returns once it is written (handed to the kernel or to lws's buffer);
  /// throws `WebSocketError.notOpen` unless the socket is open, or `.closed` if it closes first.
  /// Messages go out in call order; a queued message is written even if the caller is
  /// cancelled.
  package func send<ID: Hashable & Sendable>(id: ID, message: WebSocketMessage) async throws {
    guard let connection = sockets[AnyHashable(id)], connection.state == .open else {
      throw WebSocketError.notOpen
    }
    try await withCheckedThrowingContinuation { continuation in
      connection.send(message, completion: continuation)
    }
  }

  /// Sends a ping and returns when its pong arrives; throws `WebSocketError.notOpen` unless the
  /// socket is open, `.closed` if it closes first, `CancellationError` if the caller is
  /// cancelled.
  package func sendPing<ID: Hashable & Sendable>(id: ID) async throws {
    guard let connection = sockets[AnyHashable(id)], connection.state == .open else {
      throw WebSocketError.notOpen
    }
    let token = connection.token
    let pingID = PingID()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        pingID.value = connection.sendPing(continuation)
      }
    } onCancel: { [loop] in
      loop.execute {
        self.assumeIsolated { client in
          client.connections[token]?.cancelPing(id: pingID.value)
        }
      }
    }
  }

  /// Starts the close handshake of socket `id` with `code` and `reason` (at most 123 bytes of
  /// UTF-8; a code a close frame may not carry becomes 1000), after the messages already
  /// queued. `didClose` follows when the server answered. Closing a socket that is still
  /// connecting aborts it (1006).
  package func close<ID: Hashable & Sendable>(
    id: ID, code: Int = WebSocketCloseCode.normalClosure, reason: String = ""
  ) {
    guard let connection = sockets[AnyHashable(id)] else { return }
    end(connection, code: code, reason: reason)
  }

  /// Closes every socket (1001), waits up to `gracePeriod` for their close handshakes, aborts
  /// the rest and destroys the libwebsockets context, so that no handle of it is left on the
  /// loop. Later `open`s report `didClose` at once.
  package func shutdown(gracePeriod: Duration = .seconds(1)) async {
    isShutDown = true
    // An idle teardown still waiting out `idleContextLifetime` would keep its timer, and so
    // the loop, alive that long; one already destroying (context `.destroying`) must finish.
    if case .live = context {
      idleTeardown?.cancel()
      idleTeardown = nil
    }
    idleTeardown?.cancel()
    sockets = [:]
    for connection in connections.values {
      end(connection, code: WebSocketCloseCode.goingAway, reason: "shutting down")
    }
    if !connections.isEmpty {
      let deadline = onLoop { [loop] in
        do {
          try await loop.clock.sleep(for: gracePeriod)
        } catch {
          return
        }
        await self.abortAll(reason: "shut down")
      }
      await withCheckedContinuation { drainWaiters.append($0) }
      deadline.cancel()
    }
    while true {
      switch context {
      case .none:
        return
      case .live:
        await tearDownContextIfIdle()
      case .destroying:
        await withCheckedContinuation { teardownWaiters.append($0) }
      }
    }
  }

  /// Starts a task on the loop. A plain `Task {}` is first scheduled on the global executor,
  /// from where its hop back to this actor can come after the loop saw nothing left to do and
  /// ended.
  @discardableResult
  private nonisolated func onLoop(_ operation: sending @escaping () async -> Void) -> Task<
    Void, Never
  > {
    Task(executorPreference: loop.executor, operation: operation)
  }

  private nonisolated func onLoopThrowing(
    _ operation: sending @escaping () async throws -> Void
  ) -> Task<Void, any Error> {
    Task(executorPreference: loop.executor, operation: operation)
  }

  // MARK: Connecting

  private func resolveAndConnect(token: Int) async {
    guard let url = connections[token]?.url else { return }
    let addresses: [String]
    do {
      addresses = try await resolver(url.host, loop)
    } catch is CancellationError {
      return
    } catch {
      abort(token: token, reason: "\(error)")
      return
    }
    guard connections[token] != nil else { return }
    do {
      _ = try await liveContext()
    } catch {
      abort(token: token, reason: "\(error)")
      return
    }
    if url.isSecure {
      do {
        try await loadTrust()
      } catch {
        abort(token: token, reason: "\(error)")
        return
      }
    }
    guard let connection = connections[token] else {
      // Ended while waiting: the context may serve nobody now.
      tearDownContextSoonIfIdle()
      return
    }
    connection.resolved(addresses)
    connectToNextAddress(token: token)
  }

  /// Loads the trust anchors of the TLS context once, on the thread pool: the system's bundle
  /// takes tens of milliseconds to parse. Later wss sockets wait for the same load.
  private func loadTrust() async throws {
    guard let tls else { return }
    if trustLoading == nil {
      let caFile = configuration.caFile
      trustLoading = onLoopThrowing { [loop] in
        try await loop.threadPool.run { _ in try tls.loadTrust(caFile: caFile) }
      }
    }
    try await trustLoading?.value
  }

  /// Starts a connect attempt to the next address, skipping those lws rejects at once.
  private func connectToNextAddress(token: Int) {
    guard let connection = connections[token], case .live(let lws) = context else { return }
    while let address = connection.nextAddress() {
      if let wsi = lws.connect(
        address: address, url: connection.url, protocols: connection.protocols, token: token)
      {
        connection.attach(wsi)
        return
      }
    }
    abort(
      token: token,
      reason: connection.connectError ?? "cannot connect to \(connection.url.hostHeader)")
  }

  /// The context, created if there is none, after any teardown in progress.
  private func liveContext() async throws -> LWSContext {
    while true {
      switch context {
      case .live(let lws):
        return lws
      case .none:
        if isShutDown { throw LWSContextError(description: "the WebSocket client is shut down") }
        if let failure = cws_load() { throw LWSContextError(description: String(cString: failure)) }
        let tls = try self.tls ?? TLSClientContext()
        self.tls = tls
        let lws = try LWSContext(
          uvLoop: loop.uvLoop, owner: self, tls: tls, configuration: configuration)
        context = .live(lws)
        return lws
      case .destroying:
        await withCheckedContinuation { teardownWaiters.append($0) }
      }
    }
  }

  // MARK: Ending

  /// Closes an open socket politely, aborts one still connecting.
  private func end(_ connection: WebSocketConnection, code: Int, reason: String) {
    switch connection.state {
    case .open:
      connection.close(code: code, reason: reason)
    case .connecting:
      abort(token: connection.token, reason: "closed before it opened")
    case .closing, .closed:
      break
    }
  }

  /// The events stream of socket `token` was cancelled: forget its id, close it.
  private func abandon(token: Int) {
    guard let connection = connections[token] else { return }
    if sockets[connection.key] === connection { sockets[connection.key] = nil }
    end(connection, code: WebSocketCloseCode.normalClosure, reason: "")
  }

  private func abortAll(reason: String) {
    for token in connections.keys { abort(token: token, reason: reason) }
  }

  private func abort(token: Int, reason: String) {
    guard let connection = connections[token] else { return }
    if connection.abort(reason: reason) { finish(connection) }
  }

  /// The socket is gone: report it, forget it, and destroy the context if it was the last.
  private func finish(_ connection: WebSocketConnection) {
    connection.finish()
    connections[connection.token] = nil
    if sockets[connection.key] === connection { sockets[connection.key] = nil }
    guard connections.isEmpty else { return }
    frameCheck?.stop()
    let waiters = drainWaiters
    drainWaiters = []
    for waiter in waiters { waiter.resume() }
    tearDownContextSoonIfIdle()
  }

  /// Tears the context down once it has been idle for `idleContextLifetime`; in a task, also
  /// because this may be called inside an lws callback.
  private func tearDownContextSoonIfIdle() {
    idleTeardown?.cancel()
    // After `shutdown()` began, it tears the context down itself; a waiting teardown would
    // only hold the loop open for `idleContextLifetime`.
    guard !isShutDown else { return }
    idleTeardown = onLoop { [loop, configuration] in
      if configuration.idleContextLifetime > .zero {
        do {
          try await loop.clock.sleep(for: configuration.idleContextLifetime)
        } catch {
          return
        }
      }
      await self.tearDownContextIfIdle()
    }
  }

  /// Destroys the context in its two steps (see `LWSContext`) if no socket needs it.
  private func tearDownContextIfIdle() async {
    guard connections.isEmpty, case .live(let lws) = context else { return }
    // From here on nothing may cancel this task: a teardown stopped halfway leaks the context.
    idleTeardown = nil
    context = .destroying
    lws.beginDestroy()
    frameCheck?.close()
    frameCheck = nil
    // lws's handles close over the next loop iterations; a millisecond's sleep lets at least
    // one iteration, with its closing phase, pass between checks.
    var checks = 0
    var isClean = !lws.hasHandlesOnLoop
    while !isClean && checks < Self.teardownChecks {
      do {
        try await loop.clock.sleep(for: .milliseconds(1))
      } catch {
        break
      }
      checks += 1
      isClean = !lws.hasHandlesOnLoop
    }
    // A context whose handles never closed (the loop shutting down under it) is leaked: freeing
    // it would leave libuv pointing into freed memory, and another context beside the remains
    // of this one is not safe either, so the client takes no more sockets.
    if isClean {
      lws.finishDestroy()
    } else {
      isShutDown = true
    }
    context = .none
    let waiters = teardownWaiters
    teardownWaiters = []
    for waiter in waiters { waiter.resume() }
  }

  private func startFrameCheck() {
    if frameCheck == nil {
      // Without a check, an oversized frame is still caught at its first chunk.
      frameCheck = try? LoopCheck(loop: loop) { [weak self] in
        self?.assumeIsolated { client in
          for connection in client.connections.values { connection.checkFrameBeingRead() }
        }
      }
    }
    frameCheck?.start()
  }

  // MARK: lws callbacks

  /// One lws callback for socket `token`; the return value goes back to lws (-1 closes).
  func handle(_ callback: LWSCallback, token: Int) -> Int32 {
    let violation = LWSLog.takeViolation()
    guard let connection = connections[token] else { return 0 }
    switch callback {
    case .handshakeSent:
      connection.handshakeSent()
    case .handshakeResponse(let selectedProtocol):
      connection.selectedProtocol = selectedProtocol
    case .established:
      connection.didOpen()
      startFrameCheck()
    case .received(let wsi, let chunk):
      connection.received(chunk, wsi: wsi)
    case .pong(let payload):
      connection.pongReceived(payload)
    case .writable(let wsi):
      return connection.writeNext(wsi: wsi, buffer: writeBuffer.bytes)
    case .peerClosed(let wsi, let payload):
      return connection.peerClosed(payload, wsi: wsi, buffer: writeBuffer.bytes)
    case .connectionError(let reason):
      connection.connectionFailed(reason)
    case .certificateChecked(let failure):
      if let failure { connection.certificateRejected(failure) }
    case .closed(let wsi):
      connection.lwsClosing(violation: violation, wsi: wsi, buffer: writeBuffer.bytes)
    case .destroyed(let wsi):
      // A connect attempt's lws connection can be freed while lws_client_connect_via_info
      // still runs, before it became the attempt: that one is not the socket's end.
      guard wsi == connection.attempt else { break }
      if connection.shouldTryNextAddress {
        // Not from inside lws's close processing.
        connection.connectTask = onLoop { await self.connectToNextAddress(token: token) }
      } else {
        finish(connection)
      }
    }
    return 0
  }
}

/// Memory that lives as long as its owner.
private final class WriteBuffer {
  let bytes: UnsafeMutableRawBufferPointer

  init(byteCount: Int) {
    bytes = .allocate(byteCount: byteCount, alignment: 16)
  }

  deinit {
    bytes.deallocate()
  }
}

/// The id of a ping, written on the loop thread before its cancellation handler can read it
/// (that handler only runs on the loop thread too, after a hop).
private final class PingID: @unchecked Sendable {
  var value: UInt64 = 0
}

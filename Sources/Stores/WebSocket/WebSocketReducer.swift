import ComposableDependencies

/// An echo chat over one WebSocket, with pings, as in TCA's case study; frames holding an order
/// book update `orderBook` instead of the message list.
public struct WebSocketReducer: Reducer {
  /// The one socket this screen opens; also the cancel id of everything that uses it.
  static let socketID = "websocket"

  public static let sendFailureMessage =
    "Could not send socket message. Connect to the server first, and try again."

  let dependencies: WebSocketDependencies

  public init(dependencies: WebSocketDependencies) {
    self.dependencies = dependencies
  }

  public func reduce(into state: inout WebSocketState, action: WebSocketAction) -> Effect<
    WebSocketAction
  > {
    switch action {
    case .connectButtonTapped:
      switch state.connectivityState {
      case .connected, .connecting:
        state.connectivityState = .disconnected
        return .cancel(id: Self.socketID)
      case .disconnected:
        state.connectivityState = .connecting
        return .run { [dependencies] send in
          await connect(dependencies, send: send)
        }
        .cancellable(id: Self.socketID)
      }

    case .messageToSendChanged(let message):
      state.messageToSend = message
      return .none

    case .sendButtonTapped:
      let message = state.messageToSend
      state.messageToSend = ""
      return send(.text(message))

    case .sendMessage(let message):
      return send(message)

    case .subscribeOrderBook(let codes):
      return send(.text(dependencies.orderBook.subscription(dependencies.ticket(), codes)))

    case .sendResponse(didSucceed: false):
      state.alert = Self.sendFailureMessage
      return .none

    case .sendResponse(didSucceed: true):
      return .none

    case .alertDismissed:
      state.alert = nil
      return .none

    case .webSocket(.didOpen):
      state.connectivityState = .connected
      state.receivedMessages.removeAll()
      state.receivedBytes = 0
      return .none

    case .webSocket(.didClose(let code, let reason)):
      state.connectivityState = .disconnected
      state.lastClose = WebSocketState.Closure(code: code, reason: reason)
      return .cancel(id: Self.socketID)

    case .receivedSocketMessage(.success(let message)):
      if let book = dependencies.orderBook.decode(message.bytes) {
        state.orderBook = book
      } else {
        let received = ReceivedMessage(message)
        state.receivedMessages.append(received)
        // Saturating: a scenario's initialState may start the count anywhere.
        state.receivedBytes = state.receivedBytes.addingSaturating(received.byteCount)
        dropOldestBeyondTheBounds(&state)
      }
      return .none

    case .receivedSocketMessage(.failure(let reason)):
      state.alert = "Could not receive a socket message: \(reason)"
      return .none
    }
  }

  /// Drops the oldest messages while more than `maxReceivedMessages` or `maxReceivedBytes` are
  /// held, keeping the newest whatever its size.
  private func dropOldestBeyondTheBounds(_ state: inout WebSocketState) {
    let messages = state.receivedMessages
    var dropped = max(0, messages.count - dependencies.maxReceivedMessages)
    var droppedBytes = 0
    for index in messages.indices.prefix(dropped) {
      droppedBytes += messages[index].byteCount
    }
    while dropped < messages.count - 1
      && state.receivedBytes.subtractingSaturating(droppedBytes) > dependencies.maxReceivedBytes
    {
      droppedBytes += messages[messages.startIndex + dropped].byteCount
      dropped += 1
    }
    guard dropped > 0 else { return }
    state.receivedMessages.removeFirst(dropped)
    state.receivedBytes = state.receivedBytes.subtractingSaturating(droppedBytes)
  }

  private func send(_ message: SocketMessage) -> Effect<WebSocketAction> {
    .run { [webSocket = dependencies.webSocket] send in
      try await webSocket.send(Self.socketID, message)
      await send(.sendResponse(didSucceed: true))
    } catch: { _, send in
      await send(.sendResponse(didSucceed: false))
    }
    .cancellable(id: Self.socketID)
  }
}

/// The connection's one long-living effect: opens the socket and, once it is open, pings it
/// every `pingInterval` and receives from it in parallel, until it closes or is cancelled.
private func connect(_ dependencies: WebSocketDependencies, send: Send<WebSocketAction>) async {
  let id = WebSocketReducer.socketID
  let webSocket = dependencies.webSocket
  let events = await webSocket.open(id, dependencies.url, [])
  await withTaskGroup(of: Void.self) { group in
    for await event in events {
      await send(.webSocket(event))
      switch event {
      case .didOpen:
        group.addTask {
          let clock = dependencies.clock
          await ping(every: dependencies.pingInterval, on: clock) {
            try? await webSocket.sendPing(id)
          }
        }
        group.addTask {
          for await result in await webSocket.receive(id) {
            await send(.receivedSocketMessage(result))
          }
        }
      case .didClose:
        group.cancelAll()
        return
      }
    }
    group.cancelAll()
  }
}

/// Calls `ping` every `interval` until the task is cancelled; generic so the dependency's
/// `any Clock` opens to a concrete clock.
private func ping<C: Clock<Duration>>(
  every interval: Duration, on clock: C, _ ping: @Sendable () async -> Void
) async {
  for await _ in clock.timer(interval: interval) {
    await ping()
  }
}

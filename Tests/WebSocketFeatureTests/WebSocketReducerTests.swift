import ComposableDependencies
import ComposableTestSupport
import XCTest

@testable import WebSocketFeature

/// Exhaustive tests like TCA's own WebSocket case-study tests: happy path, send failure, pings
/// on a virtual clock, connect error; plus the order-book stream and the message bound.
final class WebSocketReducerTests: XCTestCase {
  private let clock = VirtualClock()
  private let events = AsyncStream.makeStream(of: SocketEvent.self)
  private let messages = AsyncStream.makeStream(of: ReceiveResult.self)
  private let sent = LockedBox<[SocketMessage]>([])
  private let pings = LockedBox(0)
  private let sendFails = LockedBox(false)

  private static let book = OrderBook(
    code: "KRW-BTC", timestamp: 1, totalAskSize: 3, totalBidSize: 4,
    asks: [.init(price: 101, size: 1), .init(price: 102, size: 2)],
    bids: [.init(price: 99, size: 3), .init(price: 100, size: 1)])

  struct SendFailure: Error {}

  private func makeStore(
    _ state: WebSocketState = WebSocketState(), maxReceived: Int = 1000,
    maxReceivedBytes: Int = 1 << 20
  ) -> TestStore<WebSocketState, WebSocketAction> {
    let client = WebSocketService(
      open: { [events] id, url, protocols in
        XCTAssertEqual(id, "websocket")
        XCTAssertEqual(url, "ws://127.0.0.1:1/echo")
        XCTAssertEqual(protocols, [])
        return events.stream
      },
      receive: { [messages] _ in messages.stream },
      send: { [sent, sendFails] _, message in
        if sendFails.value { throw SendFailure() }
        sent.append(message)
      },
      sendPing: { [pings] _ in pings.withValue { $0 += 1 } })
    let coding = OrderBookCoding(
      decode: { $0 == Array("BOOK".utf8) ? Self.book : nil },
      subscription: { ticket, codes in "\(ticket):\(codes.joined(separator: ","))" })
    let dependencies = WebSocketDependencies(
      webSocket: client, url: "ws://127.0.0.1:1/echo", clock: clock,
      maxReceivedMessages: maxReceived, maxReceivedBytes: maxReceivedBytes, orderBook: coding,
      ticket: { "ticket-1" })
    return TestStore(
      initialState: state, reducer: WebSocketReducer(dependencies: dependencies),
      clock: clock)
  }

  private func connect(
    _ store: TestStore<WebSocketState, WebSocketAction>,
    alsoOnOpen: @escaping (inout WebSocketState) -> Void = { _ in }
  ) {
    store.send(.connectButtonTapped) { $0.connectivityState = .connecting }
    events.continuation.yield(.didOpen(protocol: nil))
    store.advance(by: .zero)
    store.receive(.webSocket(.didOpen(protocol: nil))) {
      $0.connectivityState = .connected
      alsoOnOpen(&$0)
    }
  }

  func testHappyPath() {
    let store = makeStore()
    connect(store)
    messages.continuation.yield(.success(.text("Welcome")))
    store.advance(by: .zero)
    store.receive(.receivedSocketMessage(.success(.text("Welcome")))) {
      $0.receivedMessages = ["Welcome"]
      $0.receivedBytes = 7
    }
    store.send(.messageToSendChanged("Hi")) { $0.messageToSend = "Hi" }
    store.send(.sendButtonTapped) { $0.messageToSend = "" }
    store.receive(.sendResponse(didSucceed: true))
    XCTAssertEqual(sent.value, [.text("Hi")])
    messages.continuation.yield(.success(.text("Hi")))
    store.advance(by: .zero)
    store.receive(.receivedSocketMessage(.success(.text("Hi")))) {
      $0.receivedMessages = ["Welcome", "Hi"]
      $0.receivedBytes = 9
    }
    store.send(.connectButtonTapped) { $0.connectivityState = .disconnected }
    store.finish()
  }

  func testSendFailure() {
    let store = makeStore()
    connect(store)
    sendFails.set(true)
    store.send(.messageToSendChanged("Hi")) { $0.messageToSend = "Hi" }
    store.send(.sendButtonTapped) { $0.messageToSend = "" }
    store.receive(.sendResponse(didSucceed: false)) {
      $0.alert = WebSocketReducer.sendFailureMessage
    }
    store.send(.alertDismissed) { $0.alert = nil }
    store.send(.connectButtonTapped) { $0.connectivityState = .disconnected }
    store.finish()
  }

  func testSendMessageSendsBinaryAndTextAsGiven() {
    let store = makeStore()
    connect(store)
    store.send(.sendMessage(.binary([0, 255])))
    store.receive(.sendResponse(didSucceed: true))
    store.send(.sendMessage(.text("")))
    store.receive(.sendResponse(didSucceed: true))
    XCTAssertEqual(sent.value, [.binary([0, 255]), .text("")])
    sendFails.set(true)
    store.send(.sendMessage(.text("lost")))
    store.receive(.sendResponse(didSucceed: false)) {
      $0.alert = WebSocketReducer.sendFailureMessage
    }
    store.send(.connectButtonTapped) { $0.connectivityState = .disconnected }
    store.finish()
  }

  func testPingsEveryTenSecondsWhileOpen() {
    let store = makeStore()
    connect(store)
    store.advance(by: .milliseconds(9_999))
    XCTAssertEqual(pings.value, 0)
    store.advance(by: .milliseconds(1))
    XCTAssertEqual(pings.value, 1)
    store.advance(by: .seconds(20))
    XCTAssertEqual(pings.value, 3)
    store.send(.connectButtonTapped) { $0.connectivityState = .disconnected }
    store.advance(by: .seconds(60))
    XCTAssertEqual(pings.value, 3)
    store.finish()
  }

  func testConnectError() {
    let store = makeStore()
    store.send(.connectButtonTapped) { $0.connectivityState = .connecting }
    events.continuation.yield(.didClose(code: 1006, reason: "connection refused"))
    store.advance(by: .zero)
    store.receive(.webSocket(.didClose(code: 1006, reason: "connection refused"))) {
      $0.connectivityState = .disconnected
      $0.lastClose = .init(code: 1006, reason: "connection refused")
    }
    store.finish()
  }

  func testTheServerClosingDisconnectsAndStopsThePings() {
    let store = makeStore()
    connect(store)
    events.continuation.yield(.didClose(code: 4001, reason: "bye"))
    store.advance(by: .zero)
    store.receive(.webSocket(.didClose(code: 4001, reason: "bye"))) {
      $0.connectivityState = .disconnected
      $0.lastClose = .init(code: 4001, reason: "bye")
    }
    store.advance(by: .seconds(60))
    XCTAssertEqual(pings.value, 0)
    store.finish()
  }

  func testOrderBooksUpdateTheBookAndOtherFramesTheMessages() {
    let store = makeStore()
    connect(store)
    store.send(.subscribeOrderBook(codes: ["KRW-BTC", "KRW-ETH"]))
    store.receive(.sendResponse(didSucceed: true))
    XCTAssertEqual(sent.value, [.text("ticket-1:KRW-BTC,KRW-ETH")])
    messages.continuation.yield(.success(.binary(Array("BOOK".utf8))))
    messages.continuation.yield(.success(.binary([0, 255, 1])))
    store.advance(by: .zero)
    store.receive(.receivedSocketMessage(.success(.binary(Array("BOOK".utf8))))) {
      $0.orderBook = Self.book
    }
    store.receive(.receivedSocketMessage(.success(.binary([0, 255, 1])))) {
      $0.receivedMessages = [.binary(base64: "AP8B")]
      $0.receivedBytes = 4
    }
    XCTAssertEqual(Self.book.asks.map(\.price), [102, 101])
    XCTAssertEqual(Self.book.bids.map(\.price), [100, 99])
    store.send(.connectButtonTapped) { $0.connectivityState = .disconnected }
    store.finish()
  }

  func testOnlyTheLastMessagesAreKeptAndAReceiveFailureIsShown() {
    let store = makeStore(maxReceived: 2)
    connect(store)
    for text in ["a", "b", "c"] { messages.continuation.yield(.success(.text(text))) }
    messages.continuation.yield(.failure("text that is not UTF-8"))
    store.advance(by: .zero)
    store.receive(.receivedSocketMessage(.success(.text("a")))) {
      $0.receivedMessages = ["a"]
      $0.receivedBytes = 1
    }
    store.receive(.receivedSocketMessage(.success(.text("b")))) {
      $0.receivedMessages = ["a", "b"]
      $0.receivedBytes = 2
    }
    store.receive(.receivedSocketMessage(.success(.text("c")))) {
      $0.receivedMessages = ["b", "c"]
    }
    store.receive(.receivedSocketMessage(.failure("text that is not UTF-8"))) {
      $0.alert = "Could not receive a socket message: text that is not UTF-8"
    }
    store.send(.connectButtonTapped) { $0.connectivityState = .disconnected }
    store.finish()
  }

  func testTheOldestMessagesGoWhenTheBytesHeldPassTheBoundButNeverTheNewest() {
    let store = makeStore(maxReceivedBytes: 10)
    connect(store)
    for text in ["1234", "5678", "9é", "0123456789abc", "x"] {
      messages.continuation.yield(.success(.text(text)))
    }
    store.advance(by: .zero)
    store.receive(.receivedSocketMessage(.success(.text("1234")))) {
      $0.receivedMessages = ["1234"]
      $0.receivedBytes = 4
    }
    store.receive(.receivedSocketMessage(.success(.text("5678")))) {
      $0.receivedMessages = ["1234", "5678"]
      $0.receivedBytes = 8
    }
    // "é" is two bytes: 11 in all, one too many.
    store.receive(.receivedSocketMessage(.success(.text("9é")))) {
      $0.receivedMessages = ["5678", "9é"]
      $0.receivedBytes = 7
    }
    // Larger than the bound alone: kept, and only it.
    store.receive(.receivedSocketMessage(.success(.text("0123456789abc")))) {
      $0.receivedMessages = ["0123456789abc"]
      $0.receivedBytes = 13
    }
    store.receive(.receivedSocketMessage(.success(.text("x")))) {
      $0.receivedMessages = ["x"]
      $0.receivedBytes = 1
    }
    store.send(.connectButtonTapped) { $0.connectivityState = .disconnected }
    store.finish()
  }

  func testOpeningClearsTheMessagesOfTheLastConnection() {
    var state = WebSocketState()
    state.receivedMessages = ["from before"]
    state.receivedBytes = 11
    let store = makeStore(state)
    connect(store) {
      $0.receivedMessages = []
      $0.receivedBytes = 0
    }
    store.send(.connectButtonTapped) { $0.connectivityState = .disconnected }
    store.finish()
  }
}

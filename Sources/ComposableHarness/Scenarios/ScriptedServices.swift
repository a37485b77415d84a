import ComposableRuntime
import JSON
import Networking
import Synchronization

/// The services a scenario scripts instead of the network: canned HTTP answers, a WebSocket
/// peer, and the answers of the dependencies stores script by name. A request nothing answers gets a failure, and is
/// noted as a problem that fails the scenario. A replay uses an empty script: its effects never
/// run.
@StoreActor
final class ScriptedServices {
  let clock: VirtualClock
  let peer = ScriptedPeer()
  private var responses: [CannedResponse] = []
  private var scripted: [String: ScriptedAnswers] = [:]
  private(set) var problems: [String] = []
  /// The requests made since the last `takeRequests`.
  private var requests: [ScriptedRequest] = []
  /// How long each of the next pieces of thread-pool work waits before it starts, in virtual
  /// milliseconds, in the order they come: `slowWork` steps.
  private var slowWork: [Int] = []
  /// The `errno` each of the next saves of a file fails with, in the order they take their
  /// tickets: `failWrite` steps. Locked: a save may take its ticket off the loop.
  nonisolated let failingWrites = FailingWrites()

  /// `scripted`: the names of the dependencies the stores script.
  init(clock: VirtualClock, scripted: Set<String>) {
    self.clock = clock
    for name in scripted {
      self.scripted[name] = ScriptedAnswers(name: name, clock: clock) { [unowned self] problem in
        problems.append(problem)
      }
    }
  }

  /// The next piece of thread-pool work that starts waits `milliseconds` of virtual time first.
  func addSlowWork(milliseconds: Int) {
    slowWork.append(milliseconds)
  }

  /// Awaited before each piece of thread-pool work.
  func beforeWork() async throws {
    guard !slowWork.isEmpty else { return }
    try await clock.sleep(for: .milliseconds(slowWork.removeFirst()))
  }

  func add(_ response: CannedResponse) {
    responses.append(response)
  }

  /// The answers of the dependency `name`; nil for a name no store scripts.
  func answers(_ name: String) -> ScriptedAnswers? {
    scripted[name]
  }

  nonisolated func http(timeout: Duration) -> HTTPService {
    HTTPService(timeout: timeout) { request, _ in try await self.answer(request) }
  }

  nonisolated var webSocket: WebSocketService {
    let peer = peer
    return WebSocketService(
      open: { _, url, _ in await peer.open(url: url) },
      receive: { _ in await peer.receive() },
      send: { _, message in try await peer.send(message) },
      sendPing: { _ in try await peer.sendPing() })
  }

  /// The requests made since the last call, in order.
  func takeRequests() -> [ScriptedRequest] {
    defer { requests = [] }
    return requests
  }

  private func answer(_ request: HTTPRequest) async throws -> HTTPResponse {
    let url = request.url
    let target = RequestTarget(url)
    let made = ScriptedRequest(
      line: "\(request.method) \(target.pathAndQuery)",
      body: request.body.map(ScenarioContent.value))
    requests.append(made)
    let sent = made.body
    let answers = { (response: CannedResponse) in
      response.matches(method: request.method.rawValue, target) && response.accepts(body: sent)
    }
    guard
      let index = responses.firstIndex(where: { !$0.fallback && answers($0) })
        ?? responses.firstIndex(where: answers)
    else {
      let bodyDiffers = responses.contains { $0.matches(method: request.method.rawValue, target) }
      let text = sent?.jsonString ?? "none"
      let excerpt = text.count > 80 ? text.prefix(77) + "..." : Substring(text)
      problems.append(
        "unexpected request \(made.line)"
          + (bodyDiffers
            ? " with body \(excerpt): the canned answers for it expect another body"
            : ": no canned response matches"))
      throw HTTPError(
        .connectionFailed, url: url, message: "no canned response for \(made.line)")
    }
    let response = responses[index]
    if let times = response.times {
      if times <= 1 { responses.remove(at: index) } else { responses[index].times = times - 1 }
    }
    if response.delay > .zero { try await clock.sleep(for: response.delay) }
    if let failure = response.failure {
      throw HTTPError(failure, url: url, message: response.message ?? "canned failure")
    }
    guard (200..<300).contains(response.status) else {
      throw HTTPError(
        .status(response.status, body: response.body), url: url,
        message: response.message ?? String(decoding: response.body.prefix(200), as: UTF8.self))
    }
    return HTTPResponse(status: response.status, headers: [:], body: response.body, url: url)
  }
}

/// A request an effect made, as an `expect` step checks it.
struct ScriptedRequest {
  /// `METHOD /path?query`.
  let line: String
  /// As ``ScenarioContent`` reads it; nil when the request sent none.
  let body: JSONValue?

  /// The line alone, or with `withBody`, `{"request": line, "body": …}` (null for no body).
  func expectation(withBody: Bool) -> JSONValue {
    guard withBody else { return .string(line) }
    return ["request": .string(line), "body": body ?? .null]
  }
}

/// A URL's path and query, which canned responses match.
struct RequestTarget {
  let path: String
  let pathAndQuery: String

  init(_ url: String) {
    var rest = Substring(url)
    if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
      rest = rest[rest.index(colon, offsetBy: 3)...]
    }
    let start = rest.firstIndex(of: "/") ?? rest.endIndex
    pathAndQuery = start == rest.endIndex ? "/" : String(rest[start...])
    path = String(pathAndQuery.prefix { $0 != "?" })
  }
}

/// `{"http":{"method":"GET","path":"/todos/*","status":200,"body":{…},"delay":100}}`, or with
/// `"failure":"timedOut"` instead of a status. `path` matches the path alone, or the path and
/// query when it has a `?`; a final `*` matches any rest. With `requestBody`, only a request
/// with that body matches, as a VCR cassette matches. The first match answers; `times` limits
/// how often (default: every time). `"method":"*"` matches any method; `"fallback":true` answers
/// only requests no other canned response matches, wherever it is in the file.
struct CannedResponse {
  var method: String
  var path: String
  /// The body a request must have, as JSON (a string for one that is not JSON); nil: any.
  var requestBody: JSONValue?
  var status: Int
  var body: [UInt8]
  /// Virtual time before the answer.
  var delay: Duration
  var failure: HTTPError.Kind?
  /// The error's text, for a failure or a status outside 2xx: what a recording saw live.
  var message: String?
  var times: Int?
  var fallback = false

  func matches(method: String, _ target: RequestTarget) -> Bool {
    guard self.method == "*" || method == self.method else { return false }
    let subject = path.contains("?") ? target.pathAndQuery : target.path
    if path.hasSuffix("*") { return subject.hasPrefix(path.dropLast()) }
    return subject == path
  }

  func accepts(body: JSONValue?) -> Bool {
    guard let requestBody else { return true }
    return body == requestBody
  }

  init(_ json: JSONValue) throws(ScenarioError) {
    guard let object = json.objectValue else {
      throw ScenarioError("\"http\" must be an object")
    }
    try ScenarioError.expectKeys(
      object,
      [
        "method", "path", "requestBody", "status", "body", "delay", "failure", "message", "times",
        "fallback",
      ],
      in: "http")
    requestBody = object["requestBody"]
    method = object["method"]?.stringValue ?? "GET"
    // Methods are case-sensitive (RFC 9110, 9.1), and every store's are in capitals: "post"
    // would never match, and the request would fail far from this line.
    guard
      method == "*"
        || (!method.isEmpty
          && method.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }))
    else {
      throw ScenarioError(
        "\"http\": \"method\" is a method in capitals (GET, POST, PUT, …), or * for any")
    }
    guard let path = object["path"]?.stringValue, path.hasPrefix("/") else {
      throw ScenarioError("\"http\" needs a \"path\" starting with /")
    }
    self.path = path
    status = object["status"]?.intValue ?? 200
    body = object["body"].map(ScenarioContent.bytes) ?? []
    delay = try ScenarioFile.delay(object["delay"])
    if let name = object["failure"] {
      guard let kind = name.stringValue.flatMap({ HTTPError.Kind.byName[$0] }) else {
        throw ScenarioError(
          "\"failure\" must be one of \(HTTPError.Kind.byName.keys.sorted().joined(separator: ", "))"
        )
      }
      failure = kind
    }
    times = object["times"]?.intValue
    if let fallback = object["fallback"] {
      guard let value = fallback.boolValue else {
        throw ScenarioError("\"http\": \"fallback\" is true or false")
      }
      self.fallback = value
    }
    if let text = object["message"] {
      guard let text = text.stringValue else {
        throw ScenarioError("\"http\": \"message\" must be a string")
      }
      message = text
    }
    guard (100...599).contains(status), times.map({ $0 >= 1 }) ?? true else {
      throw ScenarioError("\"http\": status 100…599 and times >= 1 are required")
    }
  }
}

/// The other end of the `websocket` store's socket, played by the scenario.
///
/// `{"websocket":{"accept":true,"protocol":null,"echo":false,"failSends":false}}` sets how it
/// answers; steps make it deliver messages, close, or fail a receive, and check what it got.
/// `"accept":false` refuses each connection (a `didClose`, 1006 unless `"refusal"` gives the
/// code and reason); `"accept":"later"` leaves it connecting until a `{"peer":{"accept":true}}`
/// or `{"peer":{"refuse":{"code":…,"reason":…}}}` step.
@StoreActor
final class ScriptedPeer {
  enum Acceptance: Equatable {
    case accept
    case refuse(code: Int, reason: String?)
    case later
  }

  var acceptance = Acceptance.accept
  var chosenProtocol: String?
  var echoes = false
  var failsSends = false
  private(set) var sent: [SocketMessage] = []
  private(set) var pings = 0
  private var events: AsyncStream<SocketEvent>.Continuation?
  private var messages: AsyncStream<ReceiveResult>.Continuation?
  private var messageStream: AsyncStream<ReceiveResult>?
  /// A connection left connecting (`"accept":"later"`), and the URL it asked for.
  private var connecting: (events: AsyncStream<SocketEvent>.Continuation, url: String)?

  var isOpen: Bool { events != nil }
  /// Whether a connection waits for an accept or a refusal (`"accept":"later"`).
  var isConnecting: Bool { connecting != nil }

  func configure(_ json: JSONValue) throws(ScenarioError) {
    guard let object = json.objectValue else {
      throw ScenarioError("\"websocket\" must be an object")
    }
    try ScenarioError.expectKeys(
      object, ["accept", "refusal", "protocol", "echo", "failSends"], in: "websocket")
    switch object["accept"] {
    case nil: break
    case .bool(true)?: acceptance = .accept
    case .bool(false)?: acceptance = .refuse(code: 1006, reason: nil)
    case .string("later")?: acceptance = .later
    default: throw ScenarioError("\"accept\" is true, false or \"later\"")
    }
    if let refusal = object["refusal"] {
      guard acceptance != .accept, acceptance != .later else {
        throw ScenarioError("\"refusal\" goes with \"accept\":false")
      }
      let (code, reason) = try Self.closeFrame(refusal, in: "refusal")
      acceptance = .refuse(code: code, reason: reason)
    }
    chosenProtocol = object["protocol"]?.stringValue
    echoes = object["echo"]?.boolValue ?? echoes
    failsSends = object["failSends"]?.boolValue ?? failsSends
  }

  typealias CloseFrame = (code: Int, reason: String)

  /// `{"code":N,"reason":"…"}` (the reason optional), as a close or a refusal gives it.
  nonisolated static func closeFrame(_ json: JSONValue, in context: String)
    throws(ScenarioError) -> CloseFrame
  {
    guard let object = json.objectValue, let code = object["code"]?.intValue else {
      throw ScenarioError("\(context) needs a \"code\"")
    }
    try ScenarioError.expectKeys(object, ["code", "reason"], in: context)
    return (code, object["reason"]?.stringValue ?? "")
  }

  func open(url: String) -> AsyncStream<SocketEvent> {
    let (stream, continuation) = AsyncStream.makeStream(of: SocketEvent.self)
    switch acceptance {
    case .refuse(let code, let reason):
      continuation.yield(
        .didClose(code: code, reason: reason ?? "the scenario's peer refused \(url)"))
      continuation.finish()
    case .accept:
      opened(continuation)
    case .later:
      connecting = (continuation, url)
      // Cancelling the connect effect (a disconnect) gives up the attempt.
      continuation.onTermination = { _ in Task { @StoreActor in self.connecting = nil } }
    }
    return stream
  }

  /// Answers the connection left connecting: opens it, or refuses it with a close frame.
  func answer(accept: Bool, code: Int = 1006, reason: String? = nil) throws(ScenarioError) {
    guard let (continuation, url) = connecting else {
      throw ScenarioError("no connection is waiting for the peer to accept or refuse it")
    }
    connecting = nil
    continuation.onTermination = nil
    if accept {
      opened(continuation)
    } else {
      continuation.yield(
        .didClose(code: code, reason: reason ?? "the scenario's peer refused \(url)"))
      continuation.finish()
    }
  }

  private func opened(_ continuation: AsyncStream<SocketEvent>.Continuation) {
    let (messageStream, messages) = AsyncStream.makeStream(of: ReceiveResult.self)
    events = continuation
    self.messages = messages
    self.messageStream = messageStream
    // The store cancelling its connect effect ends the stream: the socket is then closed.
    continuation.onTermination = { _ in Task { @StoreActor in self.closed() } }
    continuation.yield(.didOpen(protocol: chosenProtocol))
  }

  func receive() -> AsyncStream<ReceiveResult> {
    if let messageStream { return messageStream }
    return AsyncStream { $0.finish() }
  }

  func send(_ message: SocketMessage) throws {
    guard isOpen, !failsSends else { throw PeerError() }
    sent.append(message)
    if echoes { messages?.yield(.success(message)) }
  }

  func sendPing() throws {
    guard isOpen else { throw PeerError() }
    pings += 1
  }

  /// What the peer got since the last call: the messages, and how many pings.
  func takeReceived() -> (sent: [SocketMessage], pings: Int) {
    defer {
      sent = []
      pings = 0
    }
    return (sent, pings)
  }

  func deliver(_ result: ReceiveResult) throws(ScenarioError) {
    guard let messages else { throw ScenarioError("the peer has no open socket to deliver on") }
    messages.yield(result)
  }

  func close(code: Int, reason: String) throws(ScenarioError) {
    guard let events else { throw ScenarioError("the peer has no open socket to close") }
    events.yield(.didClose(code: code, reason: reason))
    closed()
  }

  private func closed() {
    events?.finish()
    messages?.finish()
    events = nil
    messages = nil
    messageStream = nil
  }

  struct PeerError: Error, CustomStringConvertible {
    var description: String { "the scenario's peer refused the send" }
  }
}

/// The `errno` each of the next saves of a file fails with: `failWrite` steps add them, and
/// each save takes the first as it takes its ticket.
final class FailingWrites: Sendable {
  private let codes = Mutex<[Int32]>([])

  func add(_ code: Int32) { codes.withLock { $0.append(code) } }

  func next() -> Int32? { codes.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}

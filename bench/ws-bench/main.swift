// Times `count` echo round trips over one socket of the product's WebSocket client, `inFlight`
// at a time (the first `inFlight` messages go out at once, then each echo sends the next), on
// one libuv loop as the binary runs it, and prints one JSON line:
// {"messages":N,"inFlight":K,"bytes":B,"seconds":S,"cpuSeconds":C,"userSeconds":U,
// "systemSeconds":Y,"maxRSSKiB":R}. CPU is this process's time over the timed part (C = U + Y,
// from getrusage); connecting and one warm-up echo (which also skips whatever the server says
// first, such as a welcome) are not in it.
//
// Message i is the text of i in 8 digits, padded with "x" to `bytes` bytes. Every echo must be
// the next message in order; anything else, the socket closing, or no echo for 10 s ends the
// process with status 1 and a message on stderr instead of figures.
import EventLoop
import Networking

#if canImport(Glibc)
  import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let count = Int(arguments[2]),
  let inFlight = Int(arguments[3]), let bytes = Int(arguments.count == 5 ? arguments[4] : "64"),
  count > 0, inFlight > 0, bytes >= 8
else {
  let usage = "usage: ws-bench WS-URL COUNT IN-FLIGHT [BYTES (default 64, at least 8)]\n"
  _ = usage.withCString { write(STDERR_FILENO, $0, strlen($0)) }
  exit(64)
}
let url = arguments[1]
/// Seconds without an echo after which the run is a failure.
let stallSeconds: UInt32 = 10
let socket = "echo"

func fail(_ message: String) -> Never {
  let line = "ws-bench: \(message)\n"
  _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
  exit(1)
}

/// This process's user and system CPU seconds so far.
func cpuSeconds() -> (user: Double, system: Double) {
  var usage = rusage()
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
  let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
  return (user, system)
}

func maxRSSKiB() -> Int {
  var usage = rusage()
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  return usage.ru_maxrss
}

/// The messages, made before timing so the figure is the client's, not the formatting's.
func makeMessages() -> [String] {
  let padding = String(repeating: "x", count: bytes - 8)
  return (0..<count).map { index in
    let digits = String(index)
    return String(repeating: "0", count: max(0, 8 - digits.count)) + digits + padding
  }
}

/// A stuck run (a server that stopped echoing, a lost message) ends the process rather than
/// hanging the benchmark: SIGALRM fires `stallSeconds` after the alarm was last re-armed.
func armStallAlarm() {
  signal(SIGALRM) { _ in
    let message: StaticString = "ws-bench: no echo for 10 s\n"
    _ = write(STDERR_FILENO, message.utf8Start, message.utf8CodeUnitCount)
    _exit(1)
  }
  alarm(stallSeconds)
}

typealias Messages = AsyncStream<Result<WebSocketMessage, WebSocketError>>.Iterator

func send(_ text: String, client: WebSocketClient) async {
  do {
    try await client.send(id: socket, message: .text(text))
  } catch {
    fail("sending failed: \(error)")
  }
}

/// The next message, which must be text; `received` counts the echoes before it (-1 while
/// warming up).
func nextText(_ messages: inout Messages, received: Int) async -> String {
  switch await messages.next() {
  case .success(.text(let text)):
    return text
  case .success(.binary(let data)):
    fail("\(describe(received)) is a binary message of \(data.count) bytes, not text")
  case .failure(let error):
    fail("\(describe(received)) failed: \(error)")
  case nil:
    fail("the socket closed before \(describe(received))")
  }
}

func describe(_ received: Int) -> String {
  received < 0 ? "the warm-up echo" : "echo \(received) of \(count)"
}

/// The timed part: `inFlight` sends, then one send per echo until `count` were sent, and every
/// echo checked against the message it must repeat.
func roundTrips(client: WebSocketClient, messages: inout Messages, payloads: [String]) async {
  var sent = 0
  while sent < min(inFlight, count) {
    await send(payloads[sent], client: client)
    sent += 1
  }
  for received in 0..<count {
    let text = await nextText(&messages, received: received)
    guard text == payloads[received] else {
      fail("\(describe(received)) is \(text.debugDescription), expected \(payloads[received])")
    }
    if received % 1024 == 0 { alarm(stallSeconds) }
    if sent < count {
      await send(payloads[sent], client: client)
      sent += 1
    }
  }
}

func measure(loop: EventLoop) async {
  let payloads = makeMessages()
  let client = WebSocketClient(loop: loop)
  armStallAlarm()
  var events = await client.open(id: socket, url: url).makeAsyncIterator()
  switch await events.next() {
  case .didOpen:
    break
  case .didClose(let code, let reason):
    fail("could not open \(url): \(code) \(reason)")
  case nil:
    fail("could not open \(url)")
  }
  var messages = await client.receive(id: socket).makeAsyncIterator()
  // One round trip first, so the figure starts on an open, warmed-up socket.
  await send("warm-up", client: client)
  while await nextText(&messages, received: -1) != "warm-up" {}

  let (startTime, startCPU) = (ContinuousClock.now, cpuSeconds())
  await roundTrips(client: client, messages: &messages, payloads: payloads)
  let endCPU = cpuSeconds()
  let (user, system) = (endCPU.user - startCPU.user, endCPU.system - startCPU.system)
  let elapsed = startTime.duration(to: .now)
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18

  await client.close(id: socket)
  switch await events.next() {
  case .didClose(let code, _) where code == WebSocketCloseCode.normalClosure:
    break
  case let event:
    fail("expected a normal close, got \(String(describing: event))")
  }
  alarm(0)
  print(
    "{\"messages\":\(count),\"inFlight\":\(inFlight),\"bytes\":\(bytes),\"seconds\":\(seconds),"
      + "\"cpuSeconds\":\(user + system),\"userSeconds\":\(user),\"systemSeconds\":\(system),"
      + "\"maxRSSKiB\":\(maxRSSKiB())}")
  await client.shutdown()
}

let loop = try EventLoop()
Task(executorPreference: loop.executor) { await measure(loop: loop) }
loop.run()
try loop.shutdown()

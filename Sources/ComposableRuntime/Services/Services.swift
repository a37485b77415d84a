import ComposableCore
import EventLoop
import Logging

/// What every store's dependencies are built from: one value per process, so all stores share
/// the HTTP transport, the sockets, the clock and the random source.
///
/// `run` fills it with the live services: libcurl, libwebsockets, libuv's thread pool and clock
/// (or a virtual clock under `--clock virtual`). `test` fills it with scripted ones: canned
/// HTTP answers and a scripted WebSocket peer on a virtual clock, and the answers a scenario
/// gives for each ``StoreDependency``. A store builds its dependencies the same way from
/// either, and never knows which it got.
public struct Services: Sendable {
  /// HTTP(S) requests of any method and body, with JSON answers decoded by our own parser;
  /// every failure is a ``/ComposableDependencies/RequestFailure``.
  public var http: HTTPService
  /// WebSockets, with TCA's `WebSocketClient` interface.
  public var webSocket: WebSocketService
  /// libuv's thread pool, for CPU work and blocking calls.
  public var threadPool: ThreadPool
  /// The clock effects sleep on: the loop's, or a virtual one.
  public var clock: any Clock<Duration>
  /// Random choices, reproducible from `--seed`.
  public var random: SeededRandom
  /// Milliseconds since the Unix epoch as reducers should see them: the same within one loop
  /// iteration, virtual under the virtual clock, and the recorded time in a replay.
  public var now: @Sendable () -> Int
  /// Where the store keeps files between runs (`--data-dir`), created on first write.
  public var dataDirectory: String
  /// Warnings on stderr, for what the state does not say.
  public var log: Logger
  /// Logs each reduced action and state at `--log-level debug`.
  public var actionLogger: ActionLogger
  private let scriptedAnswers: @Sendable @StoreActor (String) -> ScriptedAnswers?
  /// Under `run --record`, where dependencies' answers are written.
  var answerLog: AnswerLog?
  /// Asked as each save of a ``SavedFile`` takes its ticket (in the order the effects asked):
  /// an `errno` (`ENOSPC`, `EIO`) fails that save as a full disk or a failing one would, nil
  /// lets it write. Set by `test`'s `failWrite` steps.
  package var writeFault: (@Sendable () -> Int32?)?

  /// The services as the process (`run`, `test`, `replay`) fills them; a store never builds
  /// them itself.
  package init(
    http: HTTPService, webSocket: WebSocketService, threadPool: ThreadPool,
    clock: any Clock<Duration>, random: SeededRandom, now: @escaping @Sendable () -> Int,
    dataDirectory: String, log: Logger, actionLogger: ActionLogger = .disabled,
    scripted: @escaping @Sendable @StoreActor (String) -> ScriptedAnswers? = { _ in nil }
  ) {
    self.http = http
    self.webSocket = webSocket
    self.threadPool = threadPool
    self.clock = clock
    self.random = random
    self.now = now
    self.dataDirectory = dataDirectory
    self.log = log
    self.actionLogger = actionLogger
    self.scriptedAnswers = scripted
  }

  /// Under `test`, the answers the scenario gives for the dependency `name` (one of the
  /// definition's ``StoreDefinition/dependencies``); nil in `run`, where the store uses its
  /// live dependency.
  @StoreActor
  func scripted(_ name: String) -> ScriptedAnswers? {
    scriptedAnswers(name)
  }
}

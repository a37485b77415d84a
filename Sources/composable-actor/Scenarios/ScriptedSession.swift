import ComposableCore
import EventLoop
import LiveDependencies
import Logging
import Protocol

/// The stores on scripted services and a virtual clock: what `test` runs scenarios against and
/// `replay` re-reduces a recording with. Built exactly as the run command builds its stores,
/// from a `StoreEnvironment`, so the same store code runs.
@StoreActor
final class ScriptedSession {
  let output = OutputLines()
  let clock = VirtualClock()
  let services: ScriptedServices
  let session: Session
  let time: ActionTime

  /// Reducers' time starts at `startTime`; it follows the virtual clock, or, when `replaysTime`,
  /// is set before each action from a log's `t`.
  init(
    loop: EventLoop, options: ComposableActor.Run, seed: UInt64, startTime: Int,
    replaysTime: Bool
  ) {
    let time: ActionTime =
      replaysTime ? .replayed(start: startTime) : .virtual(clock, start: startTime)
    self.time = time
    services = ScriptedServices(clock: clock)
    let sequence = ActionSequence()
    let environment = StoreEnvironment(
      options: options, threadPool: loop.threadPool,
      http: services.http(timeout: .milliseconds(Int64(options.httpTimeout * 1000))),
      webSocket: services.webSocket, nthPrime: services.nthPrime,
      random: SeededRandom(seed: seed), clock: clock, time: time, logger: .disabled,
      log: Logger(label: "composable-actor") { _ in SwiftLogNoOpLogHandler() }, output: output,
      sequence: sequence)
    session = Session(
      stores: StoreCatalog.factories(in: environment), output: output, sequence: sequence)
  }

  /// The run command's options for a scenario or a replay: `arguments` as recorded or written,
  /// with the clock, seed and data folder given here taking precedence.
  nonisolated static func options(arguments: [String], dataDir: String) throws
    -> ComposableActor.Run
  {
    let kept = removingOptions(["--clock", "--seed", "--data-dir", "--record"], from: arguments)
    return try ComposableActor.Run.parse(kept + ["--clock", "virtual", "--data-dir", dataDir])
  }
}

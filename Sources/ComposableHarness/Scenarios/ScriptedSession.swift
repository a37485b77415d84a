import ComposableRuntime
import EventLoop
import JSON
@_spi(Hosting) import Protocol

/// The stores on scripted services and a virtual clock: what `test` runs scenarios against and
/// `replay` re-reduces a recording with. Built exactly as the run command builds its stores,
/// from the catalog and a ``Services`` value, so the same store code runs.
@StoreActor
final class ScriptedSession {
  let output = OutputLines()
  let clock = VirtualClock()
  let services: ScriptedServices
  let session: Session
  let time: ActionTime

  /// Reducers' time starts at `startTime`; it follows the virtual clock, or, when `replaysTime`,
  /// is set before each action from a log's `t`. A store named in `initialStates` starts in
  /// that state (its whole JSON).
  init(
    loop: EventLoop, stores: StoreCatalog, configuration: RunConfiguration, seed: UInt64,
    startTime: Int, replaysTime: Bool, initialStates: [String: JSONValue] = [:]
  ) throws(StateDecodingError) {
    let time: ActionTime =
      replaysTime ? .replayed(start: startTime) : .virtual(clock, start: startTime)
    self.time = time
    let services = ScriptedServices(
      clock: clock, scripted: stores.scriptedDependencies)
    self.services = services
    let sequence = ActionSequence()
    var storeServices = Services(
      http: services.http(timeout: .milliseconds(Int64(configuration.httpTimeout * 1000))),
      webSocket: services.webSocket,
      threadPool: loop.threadPool.waiting { [services] in try await services.beforeWork() },
      clock: clock,
      random: SeededRandom(seed: seed), now: { time.now() },
      dataDirectory: configuration.dataDirectory
        ?? DataDirectory.defaultPath(for: configuration.name),
      log: Logger(label: "composable-actor") { _ in SwiftLogNoOpLogHandler() },
      scripted: { name in services.answers(name) })
    let failingWrites = services.failingWrites
    storeServices.writeFault = { failingWrites.next() }
    session = Session(
      stores: try stores.factories(
        options: configuration.storeOptions, services: storeServices,
        // Like TCA's TestStore, a scenario may send any action, effect-only ones included.
        output: StoreOutput(
          lines: output, sequence: sequence, mode: configuration.emit,
          acceptsEffectActions: true,
          effectTraceTime: configuration.traces.contains(.effects)
            ? { time.now() - time.start } : nil),
        initialStates: initialStates),
      output: output, sequence: sequence)
  }
}

import ComposableCore
import EventLoop
import LiveDependencies
import Logging
import PrimesFeature
import Protocol
import WebSocketFeature

/// What every store's dependencies are built from: one per run, so all stores share the HTTP
/// transport, the sockets, the clock and the random source.
///
/// The run command fills it with live services; a scenario with canned HTTP answers, a
/// scripted WebSocket peer and nth-prime answers; a replay with services no effect reaches
/// (effects do not run). The stores are built the same way from any of them.
struct StoreEnvironment {
  let options: ComposableActor.Run
  let threadPool: ThreadPool
  let http: HTTPJSON
  let webSocket: WebSocketFeature.WebSocketClient
  /// Answers instead of `--wolfram-app-id` or libprimesieve, when set.
  let nthPrime: NthPrimeClient?
  let random: SeededRandom
  let clock: any Clock<Duration>
  let time: ActionTime
  let logger: ActionLogger
  /// Warnings on stderr, for what the stores' state does not say.
  let log: Logger
  let output: OutputLines
  let sequence: ActionSequence

  /// A store hosted on the protocol with this process's output and emit mode.
  @StoreActor
  func host<State: Encodable, Action: ComposableAction>(
    _ store: Store<State, Action>, _ descriptor: StoreDescriptor
  ) -> StoreHost<State, Action> {
    StoreHost(
      name: descriptor.name, store: store, descriptor: descriptor, output: output,
      sequence: sequence, mode: options.emit)
  }

  /// For a state that lists its fields, whose patches come from the fields that changed.
  @StoreActor
  func host<State: FieldwiseEncodable, Action: ComposableAction>(
    _ store: Store<State, Action>, _ descriptor: StoreDescriptor
  ) -> StoreHost<State, Action> {
    StoreHost(
      name: descriptor.name, store: store, descriptor: descriptor, output: output,
      sequence: sequence, mode: options.emit)
  }
}

/// Every store the binary hosts, in the order `ready` lists them.
enum StoreCatalog {
  static let descriptors = [
    PrimesStore.descriptor, RandomTodoStore.descriptor, VotesStore.descriptor,
    WebSocketStore.descriptor,
  ]

  static func factories(in environment: StoreEnvironment) -> [StoreFactory] {
    [
      StoreFactory(descriptor: PrimesStore.descriptor) { PrimesStore.make(in: environment) },
      StoreFactory(descriptor: RandomTodoStore.descriptor) {
        RandomTodoStore.make(in: environment)
      },
      StoreFactory(descriptor: VotesStore.descriptor) { VotesStore.make(in: environment) },
      StoreFactory(descriptor: WebSocketStore.descriptor) { WebSocketStore.make(in: environment) },
    ]
  }
}

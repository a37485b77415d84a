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

  /// Where the stores write, in this process's emit mode. Each store builds its `StoreHost`
  /// where its state type is concrete, which picks fieldwise patches for a fieldwise state.
  var storeOutput: StoreOutput {
    StoreOutput(lines: output, sequence: sequence, mode: options.emit)
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

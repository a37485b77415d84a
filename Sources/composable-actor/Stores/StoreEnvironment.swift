import ComposableCore
import EventLoop
import LiveDependencies
import Networking
import Protocol

/// What every store's live dependencies are built from: one per process, so all stores share
/// the loop, the HTTP client, the clock and the random source.
struct StoreEnvironment {
  let loop: EventLoop
  let options: ComposableActor.Run
  let http: HTTPJSON
  let webSocket: WebSocketClient
  let random: SeededRandom
  let clock: any Clock<Duration>
  let logger: ActionLogger
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
}

/// Every store the binary hosts, in the order `ready` lists them.
enum StoreCatalog {
  static let descriptors = [
    PrimesStore.descriptor, RandomTodoStore.descriptor, VotesStore.descriptor,
    WebSocketStore.descriptor,
  ]

  @StoreActor
  static func makeStores(in environment: StoreEnvironment) -> [any HostedStore] {
    [
      PrimesStore.make(in: environment), RandomTodoStore.make(in: environment),
      VotesStore.make(in: environment), WebSocketStore.make(in: environment),
    ]
  }
}

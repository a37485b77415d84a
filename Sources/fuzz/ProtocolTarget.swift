import ComposableCore
import ComposableRuntime
import JSON
import PrimesDefinition
import PrimesFeature
@_spi(Hosting) import Protocol
import RandomTodoDefinition
import RandomTodoFeature
import VotesDefinition
import VotesFeature
import WebSocketDefinition
import WebSocketFeature

// The input path: line → JSON parser → envelope → action decoding → every store's reducer →
// output lines. Oracles: nothing crashes; every output line the session writes is one valid
// JSON object; and where the compact reader of action lines accepts a line, the general parser
// reads the same message from it.

/// Two sessions over all four stores, one that refuses the actions only effects send and one
/// that accepts them (`--allow-effect-actions`), with dependencies that answer at once: every
/// input reaches every reducer both ways, and effects finish when the executor is drained after
/// each input. Clocks are virtual and never advanced, so timers stay asleep.
final class FuzzHarness: @unchecked Sendable {
  static let shared = FuzzHarness()

  let executor = ManualExecutor()
  let sessions: [Session]

  init() {
    StoreActor.install(executor: executor)
    sessions = StoreActor.assumeIsolated {
      [false, true].map { acceptsEffectActions in
        let output = OutputLines()
        let sequence = ActionSequence()
        let storeOutput = StoreOutput(
          lines: output, sequence: sequence, mode: .actions,
          acceptsEffectActions: acceptsEffectActions)
        let stores = [
          factory(PrimesStore.self, PrimesReducer(dependencies: .instant), storeOutput),
          factory(RandomTodoStore.self, RandomTodoReducer(dependencies: .instant), storeOutput),
          factory(VotesStore.self, VotesReducer(dependencies: .instant), storeOutput),
          factory(WebSocketStore.self, WebSocketReducer(dependencies: .instant), storeOutput),
        ]
        // Few instances, so that inputs naming ever new keys reach the limit rather than grow
        // the run's memory, and fewer active ones, so that instances are parked and resumed.
        return Session(
          stores: stores, output: output, sequence: sequence, maxInstances: 8,
          maxActiveInstances: 2)
      }
    }
  }

  func check(_ line: UnsafeRawBufferPointer) {
    checkCompactReading(line)
    for session in sessions { check(line, in: session) }
  }

  private func check(_ line: UnsafeRawBufferPointer, in session: Session) {
    // Read synchronously on this thread before returning: the buffer never crosses threads.
    nonisolated(unsafe) let line = line
    let lines = StoreActor.assumeIsolated {
      session.handleLine(line, lineNumber: 1)
      var bytes: [UInt8] = []
      session.output.drain { bytes.append(contentsOf: $0) }
      return bytes
    }
    executor.runUntilIdle()
    for output in lines.split(separator: UInt8(ascii: "\n")) {
      let parsed = try? output.withUnsafeBytes { try JSONParser.parse($0) }
      guard case .object? = parsed else {
        fatalError(
          "the session wrote a line that is not a JSON object: \(String(decoding: output, as: UTF8.self))"
        )
      }
    }
  }

  private func checkCompactReading(_ line: UnsafeRawBufferPointer) {
    for maxDepth in [1, 2, JSONParser.defaultMaxDepth] {
      guard let compact = (try? CompactActionLine(line, maxDepth: maxDepth))?.message else {
        continue
      }
      let general = try? InputMessage(JSONParser.parse(line, maxDepth: maxDepth), line: line)
      guard let general, general == compact, "\(general)" == "\(compact)" else {
        fatalError(
          "the compact reader read \(compact) from \(String(decoding: line, as: UTF8.self)), "
            + "the general parser \(general.map { "\($0)" } ?? "an error")")
      }
    }
  }
}

@StoreActor
private func factory<Definition: StoreDefinition, R: Reducer>(
  _ definition: Definition.Type, _ reducer: R, _ output: StoreOutput
) -> StoreFactory
where R.State == Definition.Feature.State, R.Action == Definition.Feature.Action {
  StoreFactory(descriptor: Definition.hostDescriptor) { instance, parkedState in
    StoreHost(
      store: Store(
        initialState: parkedState as? Definition.Feature.State ?? Definition.initialState,
        reducer: reducer),
      descriptor: Definition.hostDescriptor, output: output.about(instance))
  }
}

extension PrimesDependencies {
  static let instant = PrimesDependencies(
    nthPrime: NthPrimeClient(largestN: 1_000) { n in n == 1 ? 2 : nil },
    favoritePrimes: FavoritePrimesStorage(load: { [2, 3] }, save: { _ in }),
    now: { 0 })
}

extension RandomTodoDependencies {
  static let instant = RandomTodoDependencies(
    fetchTodo: { id in Todo(userId: 1, id: id, title: "todo \(id)", completed: false) },
    randomTodoID: { 7 }, clock: VirtualClock())
}

extension VotesDependencies {
  static let instant = VotesDependencies(
    fetchCategories: { [VoteCategory(id: "food", name: "Food")] },
    fetchPopular: { [] },
    fetchVotes: { page, size, _ in VotePage(items: [], page: page, size: size, hasNext: true) },
    clock: VirtualClock())
}

extension WebSocketDependencies {
  /// A socket that opens, receives one message and closes.
  static let instant = WebSocketDependencies(
    webSocket: WebSocketService(
      open: { _, _, _ in
        AsyncStream { continuation in
          continuation.yield(.didOpen(protocol: nil))
          continuation.yield(.didClose(code: 1000, reason: ""))
          continuation.finish()
        }
      },
      receive: { _ in
        AsyncStream { continuation in
          continuation.yield(.success(.text("hello")))
          continuation.finish()
        }
      },
      send: { _, _ in }, sendPing: { _ in }),
    url: "ws://127.0.0.1:1/", clock: VirtualClock(),
    orderBook: OrderBookCoding(decode: { _ in nil }, subscription: { _, codes in "\(codes)" }),
    ticket: { "ticket" })
}

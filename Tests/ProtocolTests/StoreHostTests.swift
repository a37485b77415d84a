import ComposableCore
import JSON
import PrimesFeature
@_spi(Hosting) import Protocol
import XCTest

/// What a host may send: only the actions the descriptor says a host sends, unless the store
/// accepts effect actions (`--allow-effect-actions`, scenarios).
final class StoreHostTests: XCTestCase {
  func testAHostActionIsReduced() throws {
    let lines = try run { host in
      try host.send(.string("counter.incrTapped"), id: nil)
    }
    XCTAssertEqual(lines.map { $0["action"]?["type"] }, ["counter.incrTapped"])
  }

  func testAnEffectActionFromTheHostIsRefusedAndChangesNothing() throws {
    let lines = try run { host in
      XCTAssertThrowsError(
        try host.send(["type": "counter.nthPrimeResponse", "value": 7], id: nil)
      ) { error in
        let error = error as! ProtocolError
        XCTAssertEqual(error.code, .effectAction)
        XCTAssertEqual(
          error.message,
          "primes: counter.nthPrimeResponse is sent by the store's effects, not by a host (run "
            + "with --allow-effect-actions to inject it)")
      }
      XCTAssertEqual(host.snapshot()["alertNthPrime"], .null)
    }
    XCTAssertEqual(lines, [])
  }

  /// Who sends an action the descriptor leaves out was never said: a host may not send it,
  /// by either route a line takes, while a type that is no action is still unknown.
  func testAnUndescribedActionFromTheHostIsRefused() throws {
    let type = Array("counter.decrTapped".utf8)
    let lines = try run { host in
      for _ in 0..<2 {
        XCTAssertThrowsError(try host.send(.string("counter.decrTapped"), id: nil)) { error in
          let error = error as! ProtocolError
          XCTAssertEqual(error.code, .effectAction)
          XCTAssertEqual(
            error.message,
            "primes: counter.decrTapped is not described in the store's actions, so a host may "
              + "not send it: the definition must say who sends every case")
        }
        XCTAssertFalse(type.withUnsafeBytes { host.sendKnownAction(type: $0, id: nil) })
      }
      XCTAssertThrowsError(try host.send(.string("counter.noSuchAction"), id: nil)) { error in
        XCTAssertEqual((error as! ProtocolError).code, .unknownAction)
      }
      XCTAssertEqual(host.snapshot()["count"], 0)
    }
    XCTAssertEqual(lines, [])
  }

  func testAStoreThatAcceptsEffectActionsReducesThem() throws {
    let lines = try run(acceptsEffectActions: true) { host in
      try host.send(["type": "counter.nthPrimeResponse", "value": 7], id: nil)
    }
    XCTAssertEqual(lines.map { $0["source"] }, ["host"])
  }

  func testAnEffectActionReplayedFirstIsStillRefusedFromTheHost() throws {
    let type = Array("favoritePrimes.savedFavoritePrimes".utf8)
    let lines = try run { host in
      try host.replay(.string("favoritePrimes.savedFavoritePrimes"), source: .effect, id: nil)
      XCTAssertFalse(type.withUnsafeBytes { host.sendKnownAction(type: $0, id: nil) })
      XCTAssertThrowsError(try host.send(.string("favoritePrimes.savedFavoritePrimes"), id: nil))
    }
    XCTAssertEqual(lines.map { $0["source"] }, ["effect"])
  }

  func testAnEffectErrorNothingCatchesIsReportedWithTheActionThatStartedIt() throws {
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let output = StoreActor.assumeIsolated {
      let output = OutputLines()
      let host = StoreHost(
        store: Store(initialState: 0, reducer: Failing()),
        descriptor: StoreDescriptor(
          name: "failing", summary: "", actions: [.init("start", sentBy: .host, "")],
          stateSchema: [:]),
        output: StoreOutput(lines: output, sequence: ActionSequence(), mode: .actions))
      try? host.send(["type": "start", "value": 3], id: "a1")
      return (output, host)
    }
    executor.runUntilIdle()
    let lines = StoreActor.assumeIsolated {
      var bytes: [UInt8] = []
      output.0.drain { bytes.append(contentsOf: $0) }
      return bytes.split(separator: UInt8(ascii: "\n")).map { line in
        (try? Array(line).withUnsafeBytes { try JSONParser.parse($0) }) ?? .null
      }
    }
    XCTAssertEqual(lines.count, 2)
    XCTAssertEqual(
      lines.last,
      [
        "type": "error", "code": "effect_failed", "store": "failing",
        "action": ["type": "start", "value": 3], "id": "a1",
        "message": "failing: an effect of start failed: the disk is full",
      ])
  }

  /// Runs `body` against a primes store whose descriptor says who sends what; returns the
  /// lines written.
  private func run(
    acceptsEffectActions: Bool = false,
    _ body: @StoreActor (StoreHost<PrimesState, PrimesAction>) throws -> Void
  ) throws -> [JSONValue] {
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let bytes = try StoreActor.assumeIsolated {
      let output = OutputLines()
      let dependencies = PrimesDependencies(
        nthPrime: NthPrimeClient(largestN: 1_000) { _ in nil },
        favoritePrimes: FavoritePrimesStorage(load: { [] }, save: { _ in }), now: { 0 })
      let descriptor = StoreDescriptor(
        name: "primes", summary: "",
        actions: [
          .init("counter.incrTapped", sentBy: .host, ""),
          .init("counter.nthPrimeResponse", sentBy: .effect, ""),
          .init("favoritePrimes.savedFavoritePrimes", sentBy: .effect, ""),
        ], stateSchema: [:])
      let host = StoreHost(
        store: Store(
          initialState: PrimesState(), reducer: PrimesReducer(dependencies: dependencies)),
        descriptor: descriptor,
        output: StoreOutput(
          lines: output, sequence: ActionSequence(), mode: .actions,
          acceptsEffectActions: acceptsEffectActions))
      try body(host)
      var bytes: [UInt8] = []
      output.drain { bytes.append(contentsOf: $0) }
      return bytes
    }
    executor.runUntilIdle()
    return bytes.split(separator: UInt8(ascii: "\n")).map { line in
      (try? Array(line).withUnsafeBytes { try JSONParser.parse($0) }) ?? .null
    }
  }
}

private struct DiskFull: Error, CustomStringConvertible {
  var description: String { "the disk is full" }
}

/// A feature whose effect throws and catches nothing.
private struct Failing: Reducer {
  enum Action: ComposableAction { case start(Int) }

  func reduce(into state: inout Int, action: Action) -> Effect<Action> {
    switch action {
    case .start(let value):
      state = value
      return .run { _ in throw DiskFull() }
    }
  }
}

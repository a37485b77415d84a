import ComposableCore
import ComposableRuntime
import JSON
import PrimesDefinition
import PrimesFeature
import XCTest

@testable import ComposableHarness

#if canImport(Glibc)
  import Glibc
#endif

/// Stores with one planted bug each, of the kinds `simulate` is for: only these tests host them.

/// Meant to stop at 3; `<=` lets it reach 4.
enum OffByOneStore: StoreDefinition {
  struct State: Codable, Equatable, Sendable { var count = 0 }
  enum Action: ComposableAction, Equatable {
    case increment
    case reset
  }
  struct Feature: Reducer {
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment:
        if state.count <= 3 { state.count += 1 }
      case .reset:
        state.count = 0
      }
      return .none
    }
  }
  static let name = "offByOne"
  static let summary = "A count that should stop at 3."
  static let actions: [ActionDescriptor] = [
    .init("increment", sentBy: .host, "Adds one, up to 3."),
    .init("reset", sentBy: .host, "Back to 0."),
  ]
  static let initialState = State()
  static func reducer(options: NoOptions, services: Services) -> Feature { Feature() }
}

/// Declares that its level stays within 0...3; `raise` forgets the bound.
enum LevelStore: StoreDefinition {
  struct State: Codable, Equatable, Sendable { var level = 0 }
  enum Action: ComposableAction, Equatable {
    case raise
    case lower
  }
  struct Feature: Reducer {
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .raise: state.level += 1
      case .lower: state.level = max(0, state.level - 1)
      }
      return .none
    }
  }
  static let name = "level"
  static let summary = "A level from 0 to 3."
  static let actions: [ActionDescriptor] = [
    .init("raise", sentBy: .host, "One up."),
    .init("lower", sentBy: .host, "One down, not below 0."),
  ]
  static let initialState = State()
  static let invariants: (@Sendable (State) -> [String])? = { state in
    (0...3).contains(state.level) ? [] : ["the level is \(state.level), outside 0...3"]
  }
  static func reducer(options: NoOptions, services: Services) -> Feature { Feature() }
}

/// Its watch waits on a callback without a cancellation handler: cancelling it does nothing,
/// and it never ends.
enum LeakyWatchStore: StoreDefinition {
  struct State: Codable, Equatable, Sendable { var watching = false }
  enum Action: ComposableAction, Equatable {
    case watchTapped
    case toggled
  }
  struct Feature: Reducer {
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .watchTapped:
        state.watching = true
        return .run { _ in await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        }
      case .toggled:
        state.watching.toggle()
        return .none
      }
    }
  }
  static let name = "leakyWatch"
  static let summary = "Watches something, and cannot stop."
  static let actions: [ActionDescriptor] = [
    .init("watchTapped", sentBy: .host, "Starts watching."),
    .init("toggled", sentBy: .host, "Flips the flag."),
  ]
  static let initialState = State()
  static func reducer(options: NoOptions, services: Services) -> Feature { Feature() }
}

/// Reloads its list by assigning an equal copy. Past ``maxFollowed`` elements the patch writer
/// keeps no JSON of a list changed in place to diff a copy against, and writes the copy whole.
enum ReloadingListStore: StoreDefinition {
  static let maxFollowed = 1_024
  struct State: Encodable, Equatable, Sendable { var items: TrackedArray<Int> = [] }
  enum Action: ComposableAction, Equatable {
    case fillTapped
    case appendTapped
    case reloadTapped
    case clearTapped
  }
  struct Feature: Reducer {
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .fillTapped:
        for n in 0..<maxFollowed { state.items.append(n) }
      case .appendTapped:
        state.items.append(state.items.count)
      case .reloadTapped:
        state.items = TrackedArray(Array(state.items))
      case .clearTapped:
        state.items = []
      }
      return .none
    }
  }
  static let name = "reloadingList"
  static let summary = "A long list reloaded."
  static let actions: [ActionDescriptor] = [
    .init("fillTapped", sentBy: .host, "Appends a thousand numbers."),
    .init("appendTapped", sentBy: .host, "Appends one number."),
    .init("reloadTapped", sentBy: .host, "Assigns the list again, equal."),
    .init("clearTapped", sentBy: .host, "Empties the list."),
  ]
  static let initialState = State()
  static func reducer(options: NoOptions, services: Services) -> Feature { Feature() }
}

/// Numbers its tickets from a counter outside its state and its dependencies: replayed later in
/// the same process, the recording's actions number them on from where the counter got to.
enum TicketStore: StoreDefinition {
  nonisolated(unsafe) static var issued = 0
  struct State: Codable, Equatable, Sendable { var lastTicket = 0 }
  enum Action: ComposableAction, Equatable {
    case takeTapped
  }
  struct Feature: Reducer {
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      TicketStore.issued += 1
      state.lastTicket = TicketStore.issued
      return .none
    }
  }
  static let name = "tickets"
  static let summary = "Numbered tickets."
  static let actions: [ActionDescriptor] = [.init("takeTapped", sentBy: .host, "The next ticket.")]
  static let initialState = State()
  static func reducer(options: NoOptions, services: Services) -> Feature { Feature() }
}

/// Its flush may fail, by design and declared so; its upload's failure is a bug.
enum UploaderStore: StoreDefinition {
  struct State: Codable, Equatable, Sendable { var queued = 0 }
  enum Action: ComposableAction, Equatable {
    case queueTapped
    case flushTapped
    case uploadTapped
  }
  struct Feature: Reducer {
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .queueTapped:
        state.queued += 1
        return .none
      case .flushTapped, .uploadTapped:
        return .run { _ in throw DiskFull() }
      }
    }
  }
  static let name = "uploader"
  static let summary = "Queues, flushes and uploads."
  static let actions: [ActionDescriptor] = [
    .init("queueTapped", sentBy: .host, "One more queued."),
    .init("flushTapped", sentBy: .host, "Writes the queue out, if it can."),
    .init("uploadTapped", sentBy: .host, "Sends the queue."),
  ]
  static let effectsThatMayFail: Set<String> = ["flushTapped"]
  static let initialState = State()
  static func reducer(options: NoOptions, services: Services) -> Feature { Feature() }
}

final class SimulationTests: XCTestCase {
  private let harness = Harness.forTests(
    StoreCatalog([
      OffByOneStore.self, LeakyWatchStore.self, ReloadingListStore.self, LevelStore.self,
      TallyStore.self, PrimesStore.self, TicketStore.self, UploaderStore.self,
    ]))

  func testFindsAndShrinksAnOffByOneThatBreaksACheck() throws {
    let failure = try XCTUnwrap(try simulate("offByOne", checks: ["/count <= 3"]).failure)
    XCTAssertEqual(failure.kind, "check /count <= 3")
    XCTAssertEqual(failure.shrunkMessage, "check /count <= 3 broke: /count is 4")
    XCTAssertEqual(
      failure.scenario.dropFirst().map { JSONValue.object($0).jsonString },
      Array(
        repeating: [#"{"send":"increment"}"#, #"{"check":"/count <= 3"}"#], count: 4
      ).flatMap { $0 } + [#"{"quit":true}"#])
    try assertScenarioFails(failure, with: "check /count <= 3 broke: /count is 4")
  }

  func testFindsAndShrinksABrokenInvariantTheStoreDeclares() throws {
    let failure = try XCTUnwrap(try simulate("level").failure)
    XCTAssertEqual(failure.kind, "the store's invariants hold")
    XCTAssertEqual(
      failure.shrunkMessage, "level: the store's invariant broke: the level is 4, outside 0...3")
    XCTAssertEqual(
      failure.scenario.dropFirst().map { JSONValue.object($0).jsonString },
      Array(repeating: #"{"send":"raise"}"#, count: 4) + [#"{"quit":true}"#])
    try assertScenarioFails(failure, with: "the level is 4, outside 0...3")
  }

  func testFindsAndShrinksAnEffectThatCancellingCannotEnd() throws {
    let failure = try XCTUnwrap(try simulate("leakyWatch").failure)
    XCTAssertEqual(failure.kind, "every effect ends by quit")
    XCTAssertEqual(
      failure.scenario.dropFirst().map { JSONValue.object($0).jsonString },
      [#"{"send":"watchTapped"}"#, #"{"quit":true}"#])
    try assertScenarioFails(failure, with: "1 effect(s) did not end after quit cancelled them")
  }

  func testFindsAndShrinksAnEqualAssignmentThatPatches() throws {
    let failure = try XCTUnwrap(try simulate("reloadingList").failure)
    XCTAssertEqual(failure.kind, "an unchanged state has an empty patch")
    XCTAssertEqual(
      failure.scenario.dropFirst().map { JSONValue.object($0).jsonString },
      [
        #"{"send":"fillTapped"}"#, #"{"send":"appendTapped"}"#, #"{"send":"reloadTapped"}"#,
        #"{"quit":true}"#,
      ])
    try assertScenarioFails(
      failure, with: "reloadingList reloadTapped: the state did not change, but its patch")
  }

  /// An effect that throws past its reducer is a failure: the tally's save has no catch. (Its
  /// doubling and publishing take integers, which the set-up's `null` answers are not.)
  func testFindsAnEffectThatFailsUncaught() throws {
    var settings = SimulationSettings()
    settings.actions = ["doubleTapped": 0, "publishTapped": 0]
    let failure = try XCTUnwrap(try simulate("tally", settings: settings).failure)
    XCTAssertEqual(failure.kind, "no effect fails uncaught")
    XCTAssertEqual(
      failure.scenario.dropFirst().map { JSONValue.object($0).jsonString },
      [#"{"send":"saveTapped"}"#, #"{"quit":true}"#])
    try assertScenarioFails(failure, with: "an effect of saveTapped failed: the disk is full")
  }

  func testFindsAndShrinksAReducerThatAReplayOfItsRecordingDoesNotReproduce() throws {
    let failure = try XCTUnwrap(try simulate("tickets").failure)
    XCTAssertEqual(failure.kind, "the run's recording replays the same")
    XCTAssertEqual(
      failure.scenario.map { JSONValue.object($0).jsonString },
      [
        #"{"scenario":"simulate tickets --seed 1","store":"tickets","exhaustive":false,"replay":true,"seed":1}"#,
        #"{"send":"takeTapped"}"#, #"{"quit":true}"#,
      ])
    XCTAssertTrue(
      failure.shrunkMessage.hasPrefix(
        "the run's recording diverged on replay at seq 1, tickets takeTapped: the patch differs"),
      failure.shrunkMessage)
    try assertScenarioFails(failure, with: "the run's recording diverged on replay at seq 1")
  }

  /// The flush's failures are declared possible: a run of them passes; the upload's are not.
  func testAnEffectFailureTheStoreDeclaresPossibleIsNoBugAndAnotherIs() throws {
    var settings = SimulationSettings()
    settings.actions = ["uploadTapped": 0]
    let declared = try simulate("uploader", steps: 100, settings: settings)
    XCTAssertNil(declared.failure, declared.failure?.message ?? "")
    XCTAssertGreaterThan(declared.statistics.actions["host flushTapped", default: 0], 10)
    XCTAssertGreaterThan(declared.statistics.effects["failed", default: 0], 10)
    let failure = try XCTUnwrap(try simulate("uploader").failure)
    XCTAssertEqual(failure.kind, "no effect fails uncaught")
    XCTAssertEqual(
      failure.scenario.dropFirst().map { JSONValue.object($0).jsonString },
      [#"{"send":"uploadTapped"}"#, #"{"quit":true}"#])
    try assertScenarioFails(failure, with: "an effect of uploadTapped failed: the disk is full")
  }

  /// A store with no bug passes, with its effects' faults among the steps.
  func testAStoreWithoutBugsPassesAndSaysWhatRan() throws {
    let result = try simulate("primes", steps: 300)
    XCTAssertNil(result.failure, result.failure?.message ?? "")
    XCTAssertEqual(result.stepsRun, 300)
    XCTAssertGreaterThan(result.statistics.actions["host counter.incrTapped", default: 0], 5)
    XCTAssertGreaterThan(
      result.statistics.actions["effect counter.nthPrimeResponse", default: 0], 5)
    XCTAssertGreaterThan(result.statistics.faults.values.reduce(0, +), 5)
    XCTAssertTrue(result.statistics.paths.isSuperset(of: ["/count", "/favoritePrimes/*"]))
    XCTAssertEqual(
      result.statistics.effects["started"],
      result.statistics.effects["finished", default: 0]
        + result.statistics.effects["failed", default: 0]
        + result.statistics.effects["cancelled", default: 0])
  }

  /// The same seed makes the same run; another seed, another.
  func testTheSameSeedMakesTheSameRun() throws {
    let first = try simulate("primes", steps: 200, seed: 7).statistics.json
    XCTAssertEqual(try simulate("primes", steps: 200, seed: 7).statistics.json, first)
    XCTAssertNotEqual(try simulate("primes", steps: 200, seed: 8).statistics.json, first)
  }

  /// What a parent process keeps of a child's run (each step before it runs, and the failure
  /// before it is shrunk) is enough to shrink it there, run by run, to the same scenario.
  func testTheStepsAChildStreamsShrinkToTheSameScenarioAsTheRunItself() throws {
    let checks = [try Invariant("/count <= 3")]
    let (streamed, broke, result, reshrunk, ran) = try onLoop {
      simulation in
      var streamed: [(JSONObject, Bool)] = []
      var broke: (Int, String, Int)?
      simulation.stepGenerated = { streamed.append(($0, $1)) }
      simulation.willShrink = { steps, message, generated, _ in broke = (steps, message, generated)
      }
      let result = await simulation.run(store: "offByOne")
      let units = Array(streamed.map(\.0).prefix(broke?.0 ?? 0))
      let reshrunk = await simulation.shrink(
        units, store: "offByOne", step: broke?.2 ?? 0, message: broke?.1 ?? ""
      ) { await simulation.run($0, store: "offByOne").failure }
      return (streamed, broke, result, reshrunk, await simulation.run(units, store: "offByOne"))
    } options: {
      $0.checks = checks
    }
    let failure = try XCTUnwrap(result.failure)
    let (steps, message, generated) = try XCTUnwrap(broke)
    XCTAssertEqual(streamed.filter { !$0.1 }.count, result.stepsRun)
    XCTAssertEqual(generated, failure.step)
    XCTAssertEqual(message, failure.message)
    XCTAssertLessThanOrEqual(steps, streamed.count)
    XCTAssertEqual(ran.failure, message)
    XCTAssertGreaterThan(ran.statistics.actions["host increment", default: 0], 3)
    XCTAssertEqual(
      reshrunk.scenario.map { JSONValue.object($0).jsonString },
      failure.scenario.map { JSONValue.object($0).jsonString })
    XCTAssertEqual(reshrunk.shrinkRuns, failure.shrinkRuns)
    XCTAssertEqual(reshrunk.shrunkMessage, failure.shrunkMessage)
  }

  /// A child's result line reads back as the result it printed.
  func testAResultReadsBackFromItsJSON() throws {
    let result = try simulate("offByOne", checks: ["/count <= 3"])
    let json = result.json(reproduce: "", scenarioFile: nil)
    let read = try XCTUnwrap(Simulation.Result(json: json))
    XCTAssertEqual(read.json(reproduce: "", scenarioFile: nil), json)
    XCTAssertNotNil(read.failure)
    XCTAssertNil(Simulation.Result(json: ["store": "offByOne", "steps": 1]))
  }

  /// A crash fails one way, whatever the runtime said; its last words stop at a stack trace,
  /// whose addresses differ from run to run.
  func testACrashIsOneInvariantAndItsLastWordsLeaveOutTheStackTrace() {
    XCTAssertEqual(
      Simulation.kind(of: "the process crashed: signal 4 (Illegal instruction)"),
      "the process does not crash")
    XCTAssertEqual(
      SimulationProcesses.lastWords([
        "starting", "", "one", "two", "main.swift:28: Fatal error: Index out of range",
        "Current stack trace:", "0 libswiftCore.so 0x00007f93a295f130",
      ]), "one / two / main.swift:28: Fatal error: Index out of range")
    XCTAssertEqual(
      SimulationProcesses.lastWords([String(repeating: "x", count: 400), "💣 Program crashed"]),
      String(repeating: "x", count: 300))
    XCTAssertEqual(SimulationProcesses.lastWords([]), "")
  }

  // MARK: Helpers

  private func simulate(
    _ store: String, steps: Int = 200, seed: UInt64 = 1, checks: [String] = [],
    settings: SimulationSettings? = nil
  ) throws -> Simulation.Result {
    let checks = try checks.map { try Invariant($0) }
    return try onLoop {
      await $0.run(store: store)
    } options: { options in
      options = SimulationOptions(stores: [store], seed: seed, steps: steps, checks: checks)
      options.settings[store] = settings
    }
  }

  /// What `body` gives, run on a loop with a simulation of `options` (200 steps of seed 1 of
  /// the planted stores unless `configure` changes them).
  private func onLoop<T>(
    _ body: @escaping @StoreActor (Simulation) async -> T,
    options configure: (inout SimulationOptions) -> Void = { _ in }
  ) throws -> T {
    let loop = try EventLoop()
    StoreActor.install(executor: loop.executor)
    defer { try? loop.shutdown() }
    var options = SimulationOptions(stores: [], seed: 1, steps: 200)
    configure(&options)
    nonisolated(unsafe) var result: T?
    let harness = harness
    Task(executorPreference: loop.executor) { @StoreActor [options] in
      result = await body(Simulation(harness: harness, options: options, loop: loop))
      loop.stop()
    }
    loop.run()
    return try XCTUnwrap(result)
  }

  /// The shrunk scenario, written to a file, fails under `test` with `message`.
  private func assertScenarioFails(
    _ failure: Simulation.Failure, with message: String, line: UInt = #line
  ) throws {
    let path = "\(temporaryDirectoryPath())/simulated-\(getpid()).jsonl"
    defer { unlink(path) }
    let text = failure.scenario.map { JSONValue.object($0).jsonString }.joined(separator: "\n")
    let file = try XCTUnwrap(fopen(path, "w"))
    fputs(text + "\n", file)
    fclose(file)
    let outcome = try runTests([path], harness: harness)
    XCTAssertEqual(outcome.failed, 1, line: line)
    XCTAssertTrue(
      outcome.lines.contains { $0.contains(message) }, "\(outcome.lines)", line: line)
  }

  private func temporaryDirectoryPath() -> String {
    getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  }
}

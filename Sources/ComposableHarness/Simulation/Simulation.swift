import ComposableRuntime
import EventLoop
import JSON
@_spi(Hosting) import Protocol

/// What `simulate` is asked to do.
package struct SimulationOptions: Sendable {
  /// The stores simulated, in this order; all of the binary's when empty.
  package var stores: [String]
  package var seed: UInt64
  /// Generated steps per store, at most.
  package var steps: Int
  /// Wall-clock seconds per store, at most: a bound for CI, which gives up determinism.
  package var seconds: Double?
  package var checks: [Invariant]
  /// Each store's settings, from a simulation file; the defaults for a store it does not name.
  package var settings: [String: SimulationSettings] = [:]
  /// How many runs shrinking a failure may take: it stops with the smallest run found by then.
  package var maximumShrinkRuns = 2000

  package init(
    stores: [String], seed: UInt64, steps: Int, seconds: Double? = nil, checks: [Invariant] = []
  ) {
    self.stores = stores
    self.seed = seed
    self.steps = steps
    self.seconds = seconds
    self.checks = checks
  }
}

/// Runs stores on the scenario runner with generated steps (see docs/SIMULATION.md): each
/// step a host action, an advance of the virtual clock or a dependency event, every built-in
/// invariant and every `--check` checked after it, then a `quit` whose effects must all end.
/// A failure is shrunk to the fewest, simplest steps that fail the same way, as a scenario
/// that `test` runs.
@StoreActor
package final class Simulation {
  /// One store's simulation.
  package struct Result: Sendable {
    package let store: String
    package var stepsRun = 0
    package var statistics = SimulationStatistics()
    package var failure: Failure?
  }

  /// What broke, and the smallest run found that breaks it the same way.
  package struct Failure: Sendable {
    /// The step of the first run that broke it (1-based; the quit after the last counts).
    package let step: Int
    package let message: String
    /// What failing "the same way" compares: the check's text, or the invariant's name.
    package let kind: String
    /// The scenario file that fails the same way: its header, then its steps.
    package var scenario: [JSONObject]
    /// The steps of the scenario, checks and the quit aside.
    package var shrunkSteps: Int
    package var shrinkRuns: Int
    /// The shrunk scenario's own failure message.
    package var shrunkMessage: String
  }

  private let harness: Harness
  private let options: SimulationOptions
  private let loop: EventLoop
  private let catalog: StoreCatalog
  /// Told the store and the steps generated so far, every 100 steps: a terminal's progress.
  package var progress: ((String, Int) -> Void)?
  /// Told each step as it is generated, before it runs, and whether it is one of the set-up
  /// lines that come first: what a parent process keeps, to shrink a run that crashes this one.
  package var stepGenerated: ((JSONObject, _ setUp: Bool) -> Void)?
  /// Told a failure before it is shrunk: the steps that fail (the first of those given to
  /// `stepGenerated`), the message, the steps generated and what the run did. A parent whose
  /// child crashes while shrinking shrinks it from there.
  package var willShrink:
    ((_ steps: Int, _ message: String, _ generated: Int, SimulationStatistics) -> Void)?

  package init(harness: Harness, options: SimulationOptions, loop: EventLoop) {
    self.harness = harness
    self.options = options
    self.loop = loop
    catalog = harness.stores
  }

  /// The stores to simulate, as named; a name that is no store is an error.
  package nonisolated static func storeNames(_ asked: [String], in catalog: StoreCatalog)
    throws(ArgumentsError)
    -> [String]
  {
    for name in asked where !catalog.names.contains(name) {
      throw ArgumentsError(
        "no store named \"\(name)\"; the stores are \(catalog.names.joined(separator: ", "))")
    }
    return asked.isEmpty ? catalog.names : asked
  }

  package func run(store: String) async -> Result {
    guard let descriptor = catalog.descriptors.first(where: { $0.name == store }),
      let definition = catalog.definitions.first(where: { $0.name == store })
    else { return Result(store: store) }
    var result = Result(store: store)
    let random = SeededRandom(seed: options.seed ^ Self.stableHash(store))
    var generator = StepGenerator(
      store: descriptor, scripted: definition.scriptedDependencies,
      settings: options.settings[store] ?? SimulationSettings(), random: random)
    let header = self.header(store)
    // The steps generated so far, each with the lines run after it: the checks.
    var units: [JSONObject] = generator.setUp
    for unit in units { stepGenerated?(unit, true) }
    var pending: [(line: JSONObject, unit: Int)] = units.indices.flatMap { unit in
      ([units[unit]] + checkLines).map { ($0, unit) }
    }
    // Each line run, after the header, with the step (of `units`) it belongs to.
    var executed: [(line: JSONObject, unit: Int)] = [(header, -1)]
    var generated = 0
    var quitSent = false
    let started = ContinuousClock.now
    let deadline = options.seconds.map { started + .milliseconds(Int64($0 * 1000)) }
    var statistics = SimulationStatistics()
    let scripted = catalog.scriptedDependencies
    let outOfTime = { deadline.map { ContinuousClock.now >= $0 } ?? false }
    let run = ScenarioRun(
      scenario(header), harness: harness, loop: loop,
      nextStep: { [options] run, session in
        if pending.isEmpty {
          if generated < options.steps && !outOfTime() {
            let line = generator.next(
              state: { key in
                let instance = key.flatMap { try? InstanceKey(validating: $0) }
                return run.states[InstanceAddress(store, instance)] ?? .null
              },
              running: run.states.keys.compactMap { $0.store == store ? $0.instance?.value : nil }
                .sorted(), files: run.dataFiles,
              peerIsOpen: session.services.peer.isOpen,
              peerIsConnecting: session.services.peer.isConnecting)
            generated += 1
            if generated % 100 == 0 { self.progress?(store, generated) }
            statistics.count(step: line)
            self.stepGenerated?(line, false)
            units.append(line)
            pending = ([line] + self.checkLines).map { ($0, units.count - 1) }
          } else if !quitSent {
            quitSent = true
            pending = [(["quit": true], units.count - 1)]
          } else {
            return nil
          }
        }
        let (line, unit) = pending.removeFirst()
        executed.append((line, unit))
        return Scenario.Step(line: executed.count, action: Self.parse(line, store, scripted))
      })
    run.observe = { statistics.observe($0) }
    let outcome = await run.run()
    result.stepsRun = generated
    result.statistics = statistics
    guard let failure = outcome.failure else { return result }
    // The steps up to the one that failed: what came after cannot have caused it.
    let failedUnit =
      executed.indices.contains(failure.line - 1)
      ? executed[failure.line - 1].unit + 1 : units.count
    willShrink?(failedUnit, failure.message, generated, statistics)
    result.failure = await shrink(
      Array(units.prefix(failedUnit)), store: store, step: generated, message: failure.message
    ) { await self.failure(of: $0, store: store, header: header)?.message }
    return result
  }

  /// Shrinks `units`, which fail with `message`, to the fewest, simplest steps that fail the
  /// same way, `failure` telling how a run of steps fails (nil when it passes).
  package func shrink(
    _ units: [JSONObject], store: String, step: Int, message: String,
    failure: @escaping ([JSONObject]) async -> String?
  ) async -> Failure {
    let kind = Self.kind(of: message)
    var shrinker = Shrinker(units: units, budget: options.maximumShrinkRuns) { candidate in
      await failure(candidate).map { Self.kind(of: $0) == kind } ?? false
    }
    let shrunk = await shrinker.shrink()
    return Failure(
      step: step, message: message, kind: kind,
      scenario: scenarioLines(shrunk, header: header(store)), shrunkSteps: shrunk.count,
      shrinkRuns: shrinker.runs, shrunkMessage: await failure(shrunk) ?? "")
  }

  /// Runs `units`, the steps of a simulation of `store`, as its scenario: how it failed, if it
  /// did, and what the stores did (the actions, paths and effects of its statistics).
  package func run(_ units: [JSONObject], store: String) async -> (
    failure: String?, statistics: SimulationStatistics
  ) {
    var statistics = SimulationStatistics()
    let failure = await self.failure(of: units, store: store, header: header(store)) {
      statistics.observe($0)
    }
    return (failure?.message, statistics)
  }

  // MARK: Scenarios

  private func header(_ store: String) -> JSONObject {
    [
      "scenario": .string("simulate \(store) --seed \(options.seed)"), "store": .string(store),
      "exhaustive": false, "replay": true,
      // A seed past what a double holds exactly is written as a string, as the header allows.
      "seed": options.seed < 1 << 53 ? .int(Int(options.seed)) : .string(String(options.seed)),
    ]
  }

  /// The scenario `header` starts, without its steps.
  private func scenario(_ header: JSONObject) -> Scenario {
    var scenario = Scenario(file: "simulate", line: 1, name: header["scenario"]!.stringValue!)
    scenario.exhaustive = false
    scenario.replaysRecording = true
    scenario.seed = options.seed
    return scenario
  }

  private var checkLines: [JSONObject] {
    options.checks.map { ["check": .string($0.text)] }
  }

  /// The scenario file of `units`: its header, each step followed by the checks, then `quit`.
  private func scenarioLines(_ units: [JSONObject], header: JSONObject) -> [JSONObject] {
    [header] + units.flatMap { [$0] + checkLines } + [["quit": true]]
  }

  /// How the scenario of `units` fails, if it does.
  private func failure(
    of units: [JSONObject], store: String, header: JSONObject,
    observe: ((JSONValue) -> Void)? = nil
  ) async -> StepFailure? {
    let lines = scenarioLines(units, header: header)
    var steps = lines.enumerated().dropFirst().map { index, line in
      Scenario.Step(line: index + 1, action: Self.parse(line, store, catalog.scriptedDependencies))
    }[...]
    let run = ScenarioRun(
      scenario(header), harness: harness, loop: loop, nextStep: { _, _ in steps.popFirst() })
    run.observe = observe
    return await run.run().failure
  }

  /// A generated line as the scenario parser reads it: one it refused would be a line the
  /// written scenario could not hold, a fault of the generator.
  private static func parse(_ line: JSONObject, _ store: String, _ scripted: Set<String>)
    -> Scenario.Action
  {
    do {
      return try ScenarioFile.step(line, defaultStore: store, scripted: scripted)
    } catch {
      preconditionFailure("simulate generated \(JSONValue.object(line).jsonString): \(error)")
    }
  }

  /// What two failures must share to be the same: the broken check's text, or which built-in
  /// invariant broke.
  nonisolated static func kind(of message: String) -> String {
    if message.hasPrefix("check "), let end = message.firstRange(of: " broke:") {
      return String(message[..<end.lowerBound])
    }
    if message.hasPrefix(crashed) { return "the process does not crash" }
    let invariants = [
      ("its patch does not apply", "a patch applies to the state before it"),
      ("but its patch is not empty", "an unchanged state has an empty patch"),
      ("do not give the state it holds", "the patches give the state held"),
      ("did not end after quit", "every effect ends by quit"),
      ("diverged on replay", "the run's recording replays the same"),
      ("the store's invariant broke", "the store's invariants hold"),
      ("failed: ", "no effect fails uncaught"),
      ("refused", "no refused line for a valid action"),
    ]
    for (text, name) in invariants where message.contains(text) { return name }
    return message
  }

  /// How the message of a crash starts (see ``SimulationProcesses``).
  nonisolated static let crashed = "the process crashed"

  /// FNV-1a: the same store name gives the same stream of choices in every process.
  private static func stableHash(_ text: String) -> UInt64 {
    text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }
}

/// Makes a failing run smaller, deterministically: drops steps (halves, then quarters, … then
/// single steps), then makes each step's values simpler (smaller numbers, shorter strings and
/// arrays, shorter advances and delays), keeping every change after which it still fails.
@StoreActor
struct Shrinker {
  private(set) var units: [JSONObject]
  private let budget: Int
  private(set) var runs = 0
  private let fails: ([JSONObject]) async -> Bool

  init(units: [JSONObject], budget: Int, fails: @escaping ([JSONObject]) async -> Bool) {
    self.units = units
    self.budget = budget
    self.fails = fails
  }

  mutating func shrink() async -> [JSONObject] {
    var changed = true
    while changed && runs < budget {
      changed = false
      var chunk = max(1, units.count / 2)
      while chunk >= 1 && runs < budget {
        var start = 0
        while start < units.count && runs < budget {
          var candidate = units
          candidate.removeSubrange(start..<min(units.count, start + chunk))
          if await tries(candidate) { changed = true } else { start += chunk }
        }
        chunk /= 2
      }
      for index in units.indices where runs < budget {
        for simpler in Self.simpler(units[index]) where runs < budget {
          var candidate = units
          candidate[index] = simpler
          if await tries(candidate) {
            changed = true
            break
          }
        }
      }
    }
    return units
  }

  private mutating func tries(_ candidate: [JSONObject]) async -> Bool {
    runs += 1
    guard await fails(candidate) else { return false }
    units = candidate
    return true
  }

  /// Simpler forms of a step, simplest first: the default instance for a named one, its
  /// payload's values, an advance's or a delay's milliseconds.
  static func simpler(_ line: JSONObject) -> [JSONObject] {
    var forms: [JSONObject] = []
    // A stop names its instance; an action may go to the default one instead.
    if line["instance"] != nil, line["stop"] == nil {
      var changed = line
      changed["instance"] = nil
      forms.append(changed)
    }
    for key in ["advance", "slowWork"] {
      guard let ms = line[key]?.intValue else { continue }
      for smaller in [1, ms / 2] where smaller < ms && smaller > 0 {
        forms.append([key: .int(smaller)])
      }
    }
    if case .object(let action)? = line["send"] {
      for (key, value) in action where key != "type" {
        for simpler in simpler(value) {
          var changed = action
          changed[key] = simpler
          forms.append(["send": .object(changed)])
        }
      }
    }
    for key in line.keys where key != "send" {
      guard case .object(var body)? = line[key], body["delay"] != nil else { continue }
      body["delay"] = nil
      var changed = line
      changed[key] = .object(body)
      forms.append(changed)
    }
    if line["delay"] != nil {
      var changed = line
      changed["delay"] = nil
      forms.append(changed)
    }
    return forms
  }

  private static func simpler(_ value: JSONValue) -> [JSONValue] {
    switch value {
    case .int(let n) where n != 0:
      // Towards 0: halfway, a quarter of the way, one step; each kept change starts again.
      var forms: [Int] = [0]
      for smaller in [n / 2, n - n / 4, n - n.signum()] where !forms.contains(smaller) {
        forms.append(smaller)
      }
      return forms.filter { $0 != n }.map(JSONValue.int)
    case .number(let x) where x != 0: return [.int(0)]
    case .string(let text) where !text.isEmpty:
      return text.count > 1 ? [.string(""), .string(String(text.prefix(1)))] : [.string("")]
    case .array(let items) where !items.isEmpty:
      return items.count > 1
        ? [.array([]), .array(Array(items.dropLast())), .array(Array(items.dropFirst()))]
        : [.array([])]
    default: return []
    }
  }
}

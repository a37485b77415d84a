import ArgumentParser
import ComposableHarness
import ComposableRuntime

#if canImport(Glibc)
  import Glibc
#endif

extension ComposableActorCommand {
  /// `composable-actor simulate`: runs the stores with generated steps and checks invariants
  /// after each; a failure is shrunk to a scenario file.
  struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "simulate",
      abstract: "Run the stores with generated actions, time and faults; check invariants.",
      discussion: """
        Each step is a host action generated from the store's action schemas, an advance of \
        the virtual clock, or an answer or fault of the scripted services. After every step \
        the built-in invariants and each --check must hold; at the end a quit must end every \
        effect. A failure is shrunk to the fewest, simplest steps that fail the same way. The \
        same seed gives the same run, byte for byte. See docs/SIMULATION.md. Exit codes: 0 \
        when nothing broke, 1 when something did, 64 for bad arguments.
        """)

    @Option(name: .customLong("store"), help: "A store to simulate (repeatable; default: all).")
    var stores: [String] = []

    @Option(help: "The seed of every choice.")
    var seed: UInt64

    @Option(help: "Generated steps per store.")
    var steps: Int

    @Option(help: "Wall-clock seconds per store, at most (the run is then not reproducible).")
    var time: Double?

    @Option(
      name: .customLong("check"),
      help: "An invariant of the state: 'POINTER OP JSON' or 'length(POINTER) OP JSON'.")
    var checks: [String] = []

    @Option(
      help: """
        A simulation file: per store, the weights of steps and actions, HTTP answers, \
        scripted answers and fault rates (JSON lines; see docs/SIMULATION.md).
        """)
    var file: String?

    @Option(help: "Write the shrunk failing runs to this scenario file.")
    var shrinkTo: String?

    @Option(help: "text or json (one object per store, then a summary object).")
    var format: OutputFormat = .text

    /// Runs one store's simulation as a child of a `simulate` (``SimulationWorker``): the
    /// parent survives the child's crash and shrinks what crashed it.
    @Flag(help: .hidden)
    var worker = false

    /// With `--worker`: the file each step is written to before it runs.
    @Option(help: .hidden)
    var workerLog: String?

    /// With `--worker`: runs these steps (JSON lines) as a scenario instead.
    @Option(help: .hidden)
    var workerSteps: String?

    /// With `--worker`: writes the progress line on the standard error the child was given.
    @Flag(help: .hidden)
    var workerProgress = false

    enum OutputFormat: String, ExpressibleByArgument {
      case text
      case json
    }

    func validate() throws {
      if steps < 0 { throw ValidationError("--steps must be at least 0") }
      if let time, !(time > 0) { throw ValidationError("--time must be a positive number") }
      for check in checks {
        do { _ = try Invariant(check) } catch { throw ValidationError(error.description) }
      }
      do {
        _ = try Simulation.storeNames(stores, in: ComposableActorCommand.catalog)
      } catch {
        throw ValidationError(error.description)
      }
      if worker && (stores.count != 1 || (workerLog == nil) == (workerSteps == nil)) {
        throw ValidationError("--worker takes one --store, and --worker-log or --worker-steps")
      }
    }

    func run() throws {
      // A child's parent checked the lists; a child joins its standard error to its output
      // before anything can be written there.
      let progressOutput = worker ? SimulationWorker.takeStandardError() : STDERR_FILENO
      if !worker { try ComposableActorCommand.requireAgreeingActionLists() }
      let names = try Simulation.storeNames(stores, in: ComposableActorCommand.catalog)
      var options = SimulationOptions(
        stores: names, seed: seed, steps: steps, seconds: time,
        checks: try checks.map { try Invariant($0) })
      if let file {
        do {
          let bytes = try FileIO.readAll(file, limit: SimulationSettings.maximumBytes)
          options.settings = try SimulationSettings.read(
            bytes, stores: ComposableActorCommand.catalog)
        } catch let error as FileIO.Failure {
          throw ValidationError("cannot read \(file): \(error.reason)")
        } catch {
          throw ValidationError("\(file): \(error)")
        }
      }
      if worker {
        return try runAsWorker(options, progressOutput: progressOutput)
      }
      SimulationProcesses.prepareEnvironment()
      let loop = try EventLoop()
      StoreActor.install(executor: loop.executor)
      let report = StoreActor.assumeIsolated { SimulationResults() }
      let harness = ComposableActorCommand.harness
      // A child's arguments are these, its store's and, for a run of steps, their file's.
      let command =
        ["simulate", "--worker", "--seed", String(seed), "--steps", String(steps)]
        + (time.map { ["--time", String($0)] } ?? []) + (file.map { ["--file", $0] } ?? [])
        + checks.map { "--check=\($0)" }
      Task(executorPreference: loop.executor) {
        await report.run(harness: harness, options: options, loop: loop) { store, work, progress in
          switch work {
          case .simulate(let log):
            command + ["--store", store, "--worker-log", log]
              + (progress ? ["--worker-progress"] : [])
          case .run(let steps): command + ["--store", store, "--worker-steps", steps]
          }
        }
        loop.stop()
      }
      loop.run()
      try? loop.shutdown()
      let results = StoreActor.assumeIsolated { report.results }
      let failures = results.filter { $0.failure != nil }
      var scenarioFile: String?
      if let shrinkTo, !failures.isEmpty {
        let lines = failures.flatMap { result in
          ["# \(reproduce(result.store))"]
            + result.failure!.scenario.map { JSONValue.object($0).jsonString }
        }
        do {
          try FileIO.writeAtomically(
            Array((lines.joined(separator: "\n") + "\n").utf8), to: shrinkTo)
          scenarioFile = shrinkTo
        } catch {
          throw ComposableActorCommand.failure(
            of: "simulate", "cannot write \(shrinkTo): \(error.reason)", code: 1)
        }
      }
      var out: [String] = []
      for result in results {
        let command = reproduce(result.store)
        let file = result.failure == nil ? nil : scenarioFile
        switch format {
        case .text: out += result.text(reproduce: command, scenarioFile: file)
        case .json: out.append(result.json(reproduce: command, scenarioFile: file).jsonString)
        }
      }
      switch format {
      case .text:
        out.append(
          "\(results.count) store(s) simulated, seed \(seed), \(failures.count) broke"
            + (scenarioFile.map {
              "; run the shrunk scenarios: \(ComposableActorCommand.identity.name) test \($0)"
            } ?? ""))
      case .json:
        out.append(
          JSONValue.object([
            "type": "summary", "seed": .string(String(seed)), "stores": .int(results.count),
            "broke": .int(failures.count),
          ]).jsonString)
      }
      try? FileIO.writeOutput(Array((out.joined(separator: "\n") + "\n").utf8), to: nil)
      if !failures.isEmpty { throw ExitCode(1) }
    }

    /// Runs one store's simulation, or a file of its steps, as the child of a `simulate`.
    private func runAsWorker(_ options: SimulationOptions, progressOutput: Int32) throws {
      let loop = try EventLoop()
      StoreActor.install(executor: loop.executor)
      let harness = ComposableActorCommand.harness
      let store = stores[0]
      let work: SimulationProcesses.Work =
        workerSteps.map { .run(steps: $0) } ?? .simulate(log: workerLog ?? "")
      let progress = workerProgress ? progressOutput : nil
      Task(executorPreference: loop.executor) {
        await SimulationWorker.run(
          harness: harness, options: options, loop: loop, store: store, work: work,
          progress: progress)
        loop.stop()
      }
      loop.run()
      try? loop.shutdown()
    }

    /// The command line that runs this store's simulation again.
    private func reproduce(_ store: String) -> String {
      var words =
        [
          ComposableActorCommand.identity.name, "simulate", "--store", store, "--seed",
          String(seed),
          "--steps", String(steps),
        ] + (file.map { ["--file", $0] } ?? [])
      for check in checks { words += ["--check", "'\(check.replacingAll("'", with: "'\\''"))'"] }
      return words.joined(separator: " ")
    }
  }
}

/// The results the loop's task hands back to the command.
@StoreActor
private final class SimulationResults {
  var results: [Simulation.Result] = []

  /// Simulates each store in a child process, `arguments` giving a child's arguments for a
  /// store, what it does, and whether it shows progress.
  func run(
    harness: Harness, options: SimulationOptions, loop: EventLoop,
    arguments: @escaping @Sendable (String, SimulationProcesses.Work, Bool) -> [String]
  ) async {
    // Progress only where someone watches (a terminal on either stream: `simulate > log`
    // watched on the terminal still shows it): a log's bytes must not depend on timing.
    let progress = isatty(STDERR_FILENO) == 1 || isatty(STDOUT_FILENO) == 1
    let processes = SimulationProcesses(
      simulation: Simulation(harness: harness, options: options, loop: loop),
      arguments: { store, work in arguments(store, work, progress) }, loop: loop)
    for store in options.stores {
      results.append(await processes.run(store: store))
    }
    if progress {
      try? FileIO.writeAll(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO)
    }
  }
}

extension String {
  fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
    var result = ""
    for character in self {
      if character == target { result += replacement } else { result.append(character) }
    }
    return result
  }
}

import ComposableRuntime
import EventLoop
import JSON

#if canImport(Glibc)
  import Glibc
#endif

/// Runs each store's simulation in a child process of this same binary, so that a store that
/// crashes the process (a trap, `fatalError`, a signal) breaks an invariant, "the process does
/// not crash", instead of ending `simulate`; and shrinks such a run, each try in a child of its
/// own.
///
/// A child writes each step to a file before running it (``SimulationWorker``), and its
/// standard error is joined to its standard output: what a parent has when the child dies is
/// the steps up to the one that crashed it, and the runtime's last words. A file rather than
/// the pipe, because a line on the pipe woke the parent at every step: that cost a sixth of
/// the steps per CPU second of a run that does not crash.
@StoreActor
package final class SimulationProcesses {
  /// What a child does.
  package enum Work: Sendable {
    /// Simulates the store, writing its steps to the file `log`.
    case simulate(log: String)
    /// Runs the file `steps` of the store's steps as a scenario.
    case run(steps: String)
  }

  /// The arguments of this binary that make a child (``SimulationWorker``) do `work` for
  /// `store`.
  package typealias Arguments = @Sendable (_ store: String, _ work: Work) -> [String]

  private let simulation: Simulation
  private let arguments: Arguments
  private let loop: EventLoop

  package init(simulation: Simulation, arguments: @escaping Arguments, loop: EventLoop) {
    self.simulation = simulation
    self.arguments = arguments
    self.loop = loop
  }

  /// Turns the runtime's backtracer off for the children, before any thread runs (`setenv`
  /// races with one that reads the environment): it takes seconds to symbolicate in a child
  /// that crashed, and the addresses it prints differ from run to run, where the report must
  /// be the same bytes.
  package nonisolated static func prepareEnvironment() {
    setenv("SWIFT_BACKTRACE", "enable=no", 1)
  }

  /// Simulates `store` in a child; when the child dies, shrinks what it was running to the
  /// smallest run that fails the same way.
  package func run(store: String) async -> Simulation.Result {
    let folder: TemporaryDirectory
    do { folder = try TemporaryDirectory() } catch {
      return Self.unstarted(store, "cannot make a folder for its steps: \(error.reason)")
    }
    defer { folder.remove() }
    let log = "\(folder.path)/steps.jsonl"
    let child = await self.child(arguments(store, .simulate(log: log)))
    if child.crash == nil, let line = child.last, let result = Simulation.Result(json: line) {
      return result
    }
    var setUp: [JSONObject] = []
    var generated: [JSONObject] = []
    var broke: (steps: Int, message: String, generated: Int, statistics: SimulationStatistics)?
    let written = (try? FileIO.readAll(log, limit: Int.max)) ?? []
    for text in written.split(separator: UInt8(ascii: "\n")) {
      guard let line = try? JSONParser.parse(Array(text)) else { continue }
      switch line["type"]?.stringValue {
      case "setUp": line["step"].flatMap(\.objectValue).map { setUp.append($0) }
      case "step": line["step"].flatMap(\.objectValue).map { generated.append($0) }
      case "broke":
        if let steps = line["steps"]?.intValue, let message = line["message"]?.stringValue,
          let count = line["generated"]?.intValue,
          let statistics = line["statistics"].flatMap(SimulationStatistics.init(json:))
        {
          broke = (steps, message, count, statistics)
        }
      default: break
      }
    }
    let units = setUp + generated
    var result = Simulation.Result(store: store, stepsRun: generated.count)
    let failing: [JSONObject]
    let message: String
    if let broke {
      // It died shrinking another failure: that failure is shrunk here, each try in a child.
      failing = Array(units.prefix(broke.steps))
      message = broke.message
      result.stepsRun = broke.generated
      result.statistics = broke.statistics
    } else {
      failing = units
      message = child.crash ?? "\(Simulation.crashed): it stopped without a result"
      // What the steps before the one that crashed did, as a run of their own tells it.
      var statistics = SimulationStatistics()
      for step in generated { statistics.count(step: step) }
      result.statistics = statistics.adding(
        await self.run(Array(units.dropLast()), store: store).statistics ?? .init())
    }
    result.failure = await simulation.shrink(
      failing, store: store, step: result.stepsRun, message: message
    ) { await self.run($0, store: store).failure }
    return result
  }

  /// How `units` run as a scenario in a child: its failure (a crash's included) and, unless it
  /// crashed, what its stores did.
  private func run(_ units: [JSONObject], store: String) async -> (
    failure: String?, statistics: SimulationStatistics?
  ) {
    let file: TemporaryDirectory
    do { file = try TemporaryDirectory() } catch {
      return ("\(Simulation.crashed): cannot write its steps: \(error.reason)", nil)
    }
    defer { file.remove() }
    let path = "\(file.path)/steps.jsonl"
    do {
      try FileIO.writeAtomically(
        Array(units.map { JSONValue.object($0).jsonString + "\n" }.joined().utf8), to: path)
    } catch {
      return ("\(Simulation.crashed): cannot write its steps: \(error.reason)", nil)
    }
    let child = await self.child(arguments(store, .run(steps: path)))
    if child.crash == nil, let ran = child.last, ran["type"]?.stringValue == "ran" {
      return (ran["failure"]?.stringValue, ran["statistics"].flatMap(SimulationStatistics.init))
    }
    return (child.crash ?? "\(Simulation.crashed): it stopped without a result", nil)
  }

  /// A result that says the store's child could not be started.
  private static func unstarted(_ store: String, _ reason: String) -> Simulation.Result {
    var result = Simulation.Result(store: store)
    let message = "\(Simulation.crashed): \(reason)"
    result.failure = Simulation.Failure(
      step: 0, message: message, kind: Simulation.kind(of: message), scenario: [],
      shrunkSteps: 0, shrinkRuns: 0, shrunkMessage: message)
    return result
  }

  /// What a child printed: its last line (its result when it exited with 0), and, when it
  /// did not, how it ended.
  private func child(_ arguments: [String]) async -> (last: JSONValue?, crash: String?) {
    let result: ProcessResult
    do {
      result = try await loop.runProcess(
        TestWorker.program, arguments: arguments, argumentZero: CommandLine.arguments.first)
    } catch {
      return (nil, "\(Simulation.crashed): it could not start: \(error)")
    }
    let texts = result.output.split(separator: UInt8(ascii: "\n"))
    func parse(_ text: ArraySlice<UInt8>) -> JSONValue? {
      try? JSONParser.parse(Array(text), maxDepth: 4 * JSONParser.defaultMaxDepth)
    }
    let how: String
    switch result.termination {
    case .exited(0): return (texts.last.flatMap(parse), nil)
    case .exited(let status): how = "it exited with status \(status)"
    case .signaled(let signal):
      how = "signal \(signal) (\(strsignal(signal).map { String(cString: $0) } ?? "unknown"))"
    }
    // All it printed but its result lines is what it wrote on standard error.
    let errors = texts.filter { parse($0)?["type"] == nil }.map {
      String(decoding: $0, as: UTF8.self)
    }
    let last = Self.lastWords(errors)
    return (
      nil,
      "\(Simulation.crashed): \(how)"
        + (last.isEmpty ? "" : "; its last lines on standard error: \(last)")
    )
  }

  /// The last lines a crashed child wrote on standard error, up to a stack trace (its
  /// addresses differ from run to run), each cut to 300 characters.
  nonisolated static func lastWords(_ lines: [String]) -> String {
    let kept = lines.prefix { line in
      !["Current stack trace:", "💣", "Stack dump:", "*** "].contains { line.hasPrefix($0) }
    }.filter { !$0.allSatisfy(\.isWhitespace) }
    return kept.suffix(3).map { String($0.prefix(300)) }.joined(separator: " / ")
  }
}

/// The child's side of ``SimulationProcesses``: it writes each step to its log before it runs
/// it, then prints the result; or runs a file of steps and prints how that went. Its standard error is joined to
/// its standard output, so that what the runtime says as it crashes reaches the parent.
@StoreActor
package enum SimulationWorker {
  /// Joins standard error to standard output; returns a descriptor of the standard error it
  /// had, for a terminal's progress line.
  package nonisolated static func takeStandardError() -> Int32 {
    let original = dup(STDERR_FILENO)
    dup2(STDOUT_FILENO, STDERR_FILENO)
    return original
  }

  /// Does `work` for `store`, writing a terminal's progress line to `progress`, if given.
  package static func run(
    harness: Harness, options: SimulationOptions, loop: EventLoop, store: String,
    work: SimulationProcesses.Work, progress: Int32?
  ) async {
    let simulation = Simulation(harness: harness, options: options, loop: loop)
    if let progress {
      simulation.progress = { store, steps in
        try? FileIO.writeAll(
          Array("\r\(store): \(steps)/\(options.steps) steps\u{1B}[K".utf8), to: progress)
      }
    }
    switch work {
    case .run(let steps): await run(simulation, store: store, steps: steps)
    case .simulate(let log): await simulate(simulation, store: store, log: log)
    }
  }

  /// Simulates `store`, writing to `log` each step as it is generated (before it runs) and a
  /// `broke` line before shrinking a failure; prints the result.
  static func simulate(_ simulation: Simulation, store: String, log path: String) async {
    let log = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    defer { if log >= 0 { close(log) } }
    simulation.stepGenerated = { step, setUp in
      write(["type": .string(setUp ? "setUp" : "step"), "step": .object(step)], to: log)
    }
    simulation.willShrink = { steps, message, generated, statistics in
      write(
        [
          "type": "broke", "steps": .int(steps), "message": .string(message),
          "generated": .int(generated), "statistics": statistics.json,
        ], to: log)
    }
    var result =
      await simulation.run(store: store).json(reproduce: "", scenarioFile: nil).objectValue ?? [:]
    result["type"] = "result"
    write(.object(result), to: STDOUT_FILENO)
  }

  /// Runs the steps of `path` (JSON lines) as a scenario of `store`; prints how it failed, if
  /// it did, and what its stores did. A file that cannot be read is its failure.
  static func run(_ simulation: Simulation, store: String, steps path: String) async {
    var failure: String?
    var statistics = SimulationStatistics()
    do {
      let bytes = try FileIO.readAll(path, limit: 1 << 30)
      let units = try bytes.split(separator: UInt8(ascii: "\n")).map { line in
        guard case .object(let object) = try JSONParser.parse(Array(line)) else {
          throw ScenarioError("a step is not an object")
        }
        return object
      }
      (failure, statistics) = await simulation.run(units, store: store)
    } catch {
      failure = "cannot read the steps \(path): \(error)"
    }
    var line: JSONObject = ["type": "ran", "statistics": statistics.json]
    line["failure"] = failure.map(JSONValue.string)
    write(.object(line), to: STDOUT_FILENO)
  }

  /// Writes `line` at once: what is not written when the child crashes is lost.
  private static func write(_ line: JSONValue, to fd: Int32) {
    try? FileIO.writeAll(Array((line.jsonString + "\n").utf8), to: fd)
  }
}

import ArgumentParser
import ComposableCore
import EventLoop
import JSON

#if canImport(Glibc)
  import Glibc
#endif

extension ComposableActor {
  /// `composable-actor test FILE...`: runs scenario files, like TCA's `TestStore` from any
  /// language.
  struct Test: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "test",
      abstract: "Run scenario files (JSON lines; see docs/SCENARIOS.md) against the stores.",
      discussion: """
        Prints one line per scenario and a last "N passed, N failed" line. Exit codes: 0 when \
        every scenario passed, 1 when one failed (an unreadable file counts as a failure), 64 \
        for bad arguments.
        """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
      case text
      case json
    }

    @Argument(help: "Scenario files.")
    var files: [String]

    @Option(help: "text, or json: one object per scenario, then a summary object.")
    var format: Format = .text

    func run() throws {
      let loop = try EventLoop()
      StoreActor.install(executor: loop.executor)
      let report = StoreActor.assumeIsolated { TestReport(format: format) }
      Task(executorPreference: loop.executor) { await report.run(files, on: loop) }
      loop.run()
      try? loop.shutdown()
      let (finished, failed) = StoreActor.assumeIsolated { (report.isFinished, report.failed) }
      guard finished else {
        throw RuntimeError("the scenarios stopped before the end (the loop ran out of work)")
      }
      if failed > 0 { throw ExitCode(1) }
    }
  }
}

struct RuntimeError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Prints each scenario's result as it finishes, then the totals.
@StoreActor
final class TestReport {
  let format: ComposableActor.Test.Format
  private(set) var passed = 0
  private(set) var failed = 0
  private(set) var isFinished = false

  init(format: ComposableActor.Test.Format) {
    self.format = format
  }

  func run(_ files: [String], on loop: EventLoop) async {
    for file in files {
      do throws(ScenarioError) {
        for scenario in try ScenarioFile.read(file) {
          add(await ScenarioRun(scenario, loop: loop).run())
        }
      } catch {
        unreadable(file, error)
      }
    }
    finish()
  }

  func add(_ outcome: ScenarioOutcome) {
    let scenario = outcome.scenario
    if outcome.failure == nil { passed += 1 } else { failed += 1 }
    switch format {
    case .text:
      let place = "\(scenario.file):\(scenario.line)"
      guard let failure = outcome.failure else {
        return print("ok    \(place)  \(scenario.name)")
      }
      var text = "FAIL  \(place)  \(scenario.name)\n"
      text += "      line \(failure.line) (\(failure.step)): \(failure.message)"
      for difference in failure.differences {
        text += "\n        \(difference.path): expected \(show(difference.expected)), "
        text += "actual \(show(difference.actual))"
      }
      print(text)
    case .json:
      var line: JSONObject = [
        "type": "scenario", "file": .string(scenario.file), "line": .int(scenario.line),
        "name": .string(scenario.name), "passed": .bool(outcome.failure == nil),
      ]
      if let failure = outcome.failure {
        line["failure"] = [
          "line": .int(failure.line), "step": .string(failure.step),
          "message": .string(failure.message),
          "differences": .array(
            failure.differences.map { difference in
              var entry: JSONObject = ["path": .string(difference.path)]
              entry["expected"] = difference.expected
              entry["actual"] = difference.actual
              return .object(entry)
            }),
        ]
      }
      print(JSONValue.object(line).jsonString)
    }
  }

  func unreadable(_ file: String, _ error: ScenarioError) {
    failed += 1
    switch format {
    case .text:
      print("FAIL  \(file)  (unreadable)\n      \(error)")
    case .json:
      var line: JSONObject = [
        "type": "scenario", "file": .string(file), "passed": false,
        "failure": ["message": .string(error.message)],
      ]
      if let number = error.line { line["line"] = .int(number) }
      print(JSONValue.object(line).jsonString)
    }
  }

  func finish() {
    isFinished = true
    switch format {
    case .text: print("\(passed) passed, \(failed) failed")
    case .json:
      print(
        JSONValue.object(["type": "summary", "passed": .int(passed), "failed": .int(failed)])
          .jsonString)
    }
    fflush(nil)
  }

  private func show(_ value: JSONValue?) -> String {
    value.map(\.jsonString) ?? "(absent)"
  }
}

import ComposableRuntime
import EventLoop
import JSON

#if canImport(Glibc)
  import Glibc
#endif

/// Prints each scenario's result as it finishes, then the totals.
@StoreActor
public final class TestReport {
  /// How results are printed.
  public enum Format: String, Sendable, CaseIterable {
    /// `ok`/`FAIL` lines, then `N passed, N failed`.
    case text
    /// One object per scenario, then a summary object.
    case json
  }

  let format: Format
  let harness: Harness
  public private(set) var passed = 0
  public private(set) var failed = 0
  public private(set) var isFinished = false
  /// Where each line of the report goes: stdout unless a test collects it.
  public var write: (String) -> Void = { print($0) }

  public init(format: Format, harness: Harness) {
    self.format = format
    self.harness = harness
  }

  /// Runs every scenario of every file, one after the other, on `loop`.
  public func run(_ files: [String], on loop: EventLoop) async {
    let scripted = harness.stores.scriptedDependencies
    for file in files {
      do throws(ScenarioError) {
        for scenario in try ScenarioFile.read(file, scripted: scripted) {
          add(await ScenarioRun(scenario, harness: harness, loop: loop).run())
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
        return write("ok    \(place)  \(scenario.name)")
      }
      var text = "FAIL  \(place)  \(scenario.name)\n"
      text += "      line \(failure.line) (\(failure.step)): \(failure.message)"
      for difference in failure.differences {
        text += "\n        \(difference.path): expected \(show(difference.expected)), "
        text += "actual \(show(difference.actual))"
      }
      write(text)
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
      write(JSONValue.object(line).jsonString)
    }
  }

  func unreadable(_ file: String, _ error: ScenarioError) {
    failed += 1
    switch format {
    case .text:
      write("FAIL  \(file)  (unreadable)\n      \(error)")
    case .json:
      var line: JSONObject = [
        "type": "scenario", "file": .string(file), "passed": false,
        "failure": ["message": .string(error.message)],
      ]
      if let number = error.line { line["line"] = .int(number) }
      write(JSONValue.object(line).jsonString)
    }
  }

  func finish() {
    isFinished = true
    switch format {
    case .text: write("\(passed) passed, \(failed) failed")
    case .json:
      write(
        JSONValue.object(["type": "summary", "passed": .int(passed), "failed": .int(failed)])
          .jsonString)
    }
    fflush(nil)
  }

  private func show(_ value: JSONValue?) -> String {
    value.map(\.jsonString) ?? "(absent)"
  }
}

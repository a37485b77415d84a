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
    /// TAP 13 (the Test Anything Protocol): `ok N - …` or `not ok N - …` per scenario, the
    /// failure as `#` lines, the plan `1..N` last.
    case tap
    /// JUnit XML, the form CI servers show: one `<testsuite>` per file, written at the end.
    case junit
  }

  let format: Format
  let harness: Harness
  public private(set) var passed = 0
  public private(set) var failed = 0
  public private(set) var isFinished = false
  /// Where each line of the report goes: stdout unless a test collects it.
  public var write: (String) -> Void = { print($0) }
  /// What the JUnit report lists, in order, until the end.
  private var junitCases: [JUnitCase] = []

  public init(format: Format, harness: Harness) {
    self.format = format
    self.harness = harness
  }

  /// Runs, one after the other on `loop`, every scenario of `paths`: files, folders (their
  /// `.jsonl` files, in name order, subfolders included) and `-` (standard input). With a
  /// `filter`, only the scenarios whose name contains it run, and one must.
  public func run(_ paths: [String], filter: String? = nil, on loop: EventLoop) async {
    let scripted = harness.stores.scriptedDependencies
    var matched = 0
    for file in paths.flatMap(Self.scenarioFiles) {
      do throws(ScenarioError) {
        for scenario in try ScenarioFile.read(file, scripted: scripted)
        where filter.map(scenario.name.contains) ?? true {
          matched += 1
          add(await ScenarioRun(scenario, harness: harness, loop: loop).run())
        }
      } catch {
        unreadable(file, error)
      }
    }
    if let filter, matched == 0 {
      unreadable(
        paths.joined(separator: " "), ScenarioError("no scenario's name contains \"\(filter)\""))
    }
    finish()
  }

  /// A folder's scenario files, or the path itself (a file, `-`, or a path that is neither,
  /// which is then reported unreadable).
  private static func scenarioFiles(_ path: String) -> [String] {
    guard let entries = try? FileIO.entries(of: path) else { return [path] }
    let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
    return entries.filter { !$0.name.hasPrefix(".") }.flatMap { entry in
      let child = "\(folder)/\(entry.name)"
      if entry.isDirectory { return scenarioFiles(child) }
      return entry.name.hasSuffix(".jsonl") ? [child] : []
    }.sorted()
  }

  func add(_ outcome: ScenarioOutcome) {
    let scenario = outcome.scenario
    if outcome.failure == nil { passed += 1 } else { failed += 1 }
    let place = "\(scenario.file):\(scenario.line)"
    let detail = outcome.failure.map { failureLines($0, file: scenario.file) } ?? []
    switch format {
    case .text:
      let status = outcome.failure == nil ? "ok  " : "FAIL"
      write(
        (["\(status)  \(place)  \(scenario.name)"] + detail.map { "      \($0)" }).joined(
          separator: "\n"))
    case .tap:
      tapLine(passed: outcome.failure == nil, "\(place) \(scenario.name)", detail)
    case .junit:
      junitCases.append(
        JUnitCase(
          file: scenario.file, name: scenario.name, line: scenario.line,
          failure: outcome.failure.map { ($0.message, detail.joined(separator: "\n")) }))
    case .json:
      var line: JSONObject = [
        "type": "scenario", "file": .string(scenario.file), "line": .int(scenario.line),
        "name": .string(scenario.name), "passed": .bool(outcome.failure == nil),
      ]
      if let failure = outcome.failure {
        line["failure"] = [
          "line": .int(failure.line), "step": .string(failure.step),
          "message": .string(failure.message),
          "differences": .array(failure.differences.map(\.json)),
        ]
      }
      write(JSONValue.object(line).jsonString)
    }
  }

  func unreadable(_ file: String, _ error: ScenarioError) {
    failed += 1
    let detail = "\(error.line.map { "\(file):\($0):" } ?? "\(file):") \(error.message)"
    switch format {
    case .text:
      write("FAIL  \(file)  (unreadable)\n      \(detail)")
    case .tap:
      tapLine(passed: false, "\(file) (unreadable)", [detail])
    case .junit:
      junitCases.append(
        JUnitCase(
          file: file, name: "(unreadable)", line: error.line, failure: (error.message, detail)))
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
    case .tap: write("1..\(passed + failed)\n# \(passed) passed, \(failed) failed")
    case .junit: write(JUnitCase.document(junitCases))
    case .json:
      write(
        JSONValue.object(["type": "summary", "passed": .int(passed), "failed": .int(failed)])
          .jsonString)
    }
    fflush(nil)
  }

  /// The failing step as `FILE:LINE:` first (an editor or a CI log viewer jumps to it), what
  /// it did, then the −/+ report of what differs, or each thing that differs.
  private func failureLines(_ failure: StepFailure, file: String) -> [String] {
    let heading = "\(file):\(failure.line): \(failure.step): \(failure.message)"
    guard failure.report.isEmpty else {
      return [heading + " (− expected, + actual)"] + failure.report.map { "  " + $0 }
    }
    return [heading]
      + failure.differences.map { difference in
        "  \(difference.path): expected \(show(difference.expected)), "
          + "actual \(show(difference.actual))"
      }
  }

  private func tapLine(passed: Bool, _ description: String, _ detail: [String]) {
    let number = self.passed + failed
    write(
      (["\(passed ? "ok" : "not ok") \(number) - \(description)"] + detail.map { "# \($0)" })
        .joined(separator: "\n"))
  }

  private func show(_ value: JSONValue?) -> String {
    value.map(\.jsonString) ?? "(absent)"
  }
}

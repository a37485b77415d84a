import ComposableRuntime
import EventLoop
import JSON

#if canImport(Glibc)
  import Glibc
#endif

/// Prints each scenario's result as it finishes, then the totals.
@StoreActor
package final class TestReport {
  /// How results are printed.
  package enum Format: String, Sendable, CaseIterable {
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
  package private(set) var passed = 0
  package private(set) var failed = 0
  package private(set) var isFinished = false
  /// Where each line of the report goes: stdout unless a test collects it.
  package var write: (String) throws(FileIO.Failure) -> Void = {
    try FileIO.writeOutput(Array(($0 + "\n").utf8), to: nil)
  }
  /// Why the report could not be written, the first time: the lines after it are dropped, and
  /// the command ends with 74 once the scenarios ran, whatever they did.
  package private(set) var outputFailure: FileIO.Failure?
  /// What the JUnit report lists, in order, until the end.
  private var junitCases: [JUnitCase] = []

  package init(format: Format, harness: Harness) {
    self.format = format
    self.harness = harness
  }

  /// How `run` hands files to worker processes (`test -j N`).
  package struct Workers: Sendable {
    /// At most this many run at once; with 1, every file runs in this process.
    package var count: Int
    /// The arguments of this binary that run one file as a worker (see ``runAsWorker``).
    package var arguments: @Sendable (_ file: String) -> [String]

    package init(count: Int, arguments: @escaping @Sendable (_ file: String) -> [String]) {
      self.count = count
      self.arguments = arguments
    }
  }

  /// Runs every scenario of `paths`: files, folders (their `.jsonl` files, in name order,
  /// subfolders included) and `-` (standard input). With a `filter`, only the scenarios whose
  /// name contains it run, and one must.
  ///
  /// The scenarios run one after the other on `loop`, or, with `workers`, each file but standard
  /// input in a worker process, several at once (one file too). Either way the report is the same: each file's
  /// results printed as soon as it and every file before it are done.
  package func run(
    _ paths: [String], filter: String? = nil, workers: Workers? = nil, on loop: EventLoop
  ) async {
    let files = paths.flatMap(Self.scenarioFiles)
    var matched = 0
    // One file too runs in a worker: a scenario that crashes the process is then a failure
    // the report names, not the end of the command.
    if let workers, workers.count > 1, files.contains(where: { $0 != ScenarioFile.standardInput }) {
      matched = await runInWorkers(files, filter: filter, workers: workers, on: loop)
    } else {
      for file in files {
        matched += await runHere(file, filter: filter, on: loop)
      }
    }
    if let filter, matched == 0 {
      unreadable(
        paths.joined(separator: " "), ScenarioError("no scenario's name contains \"\(filter)\""))
    }
    finish()
  }

  /// Runs one file as a worker of a `test -j` run: its records as `--format json` lines (the
  /// report's format must be json), then ``TestWorker/endLine(matched:)``.
  package func runAsWorker(_ file: String, filter: String?, on loop: EventLoop) async {
    let matched = await runHere(file, filter: filter, on: loop)
    report(TestWorker.endLine(matched: matched))
    isFinished = true
  }

  /// Runs the scenarios of one file here and reports them; returns how many the filter matched.
  private func runHere(_ file: String, filter: String?, on loop: EventLoop) async -> Int {
    var matched = 0
    do throws(ScenarioError) {
      for scenario in try await ScenarioFile.read(
        file, scripted: harness.stores.scriptedDependencies, on: loop)
      where filter.map(scenario.name.contains) ?? true {
        matched += 1
        add(await ScenarioRun(scenario, harness: harness, loop: loop).run())
      }
    } catch {
      unreadable(file, error)
    }
    return matched
  }

  /// Runs `files` in workers, at most `workers.count` at once and standard input here, and
  /// reports them in order; returns how many scenarios the filter matched.
  private func runInWorkers(
    _ files: [String], filter: String?, workers: Workers, on loop: EventLoop
  ) async -> Int {
    var matched = 0
    await withTaskGroup(of: (Int, TestWorker.Run).self) { group in
      var waiting = files.indices.filter { files[$0] != ScenarioFile.standardInput }[...]
      var running = 0
      var finished: [Int: TestWorker.Run] = [:]
      func startWorkers() {
        while running < workers.count, let index = waiting.popFirst() {
          running += 1
          let arguments = workers.arguments(files[index])
          group.addTask { (index, await TestWorker.run(arguments, on: loop)) }
        }
      }
      startWorkers()
      for (index, file) in files.enumerated() {
        guard file != ScenarioFile.standardInput else {
          matched += await runHere(file, filter: filter, on: loop)
          continue
        }
        while finished[index] == nil, let (done, result) = await group.next() {
          running -= 1
          finished[done] = result
          startWorkers()
        }
        // Workers start in file order, so this file's has started and the loop above waited
        // for it.
        let (records, count) = TestWorker.records(of: file, finished.removeValue(forKey: index)!)
        records.forEach(add)
        matched += count
      }
    }
    return matched
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

  func add(_ record: TestRecord) {
    switch record {
    case .scenario(let outcome): add(outcome)
    case .unreadable(let file, let error): unreadable(file, error)
    }
  }

  func add(_ outcome: ScenarioOutcome) {
    let scenario = outcome.scenario
    if outcome.failure == nil { passed += 1 } else { failed += 1 }
    let place = "\(scenario.file):\(scenario.line)"
    let detail = outcome.failure.map { failureLines($0, file: scenario.file) } ?? []
    switch format {
    case .text:
      let status = outcome.failure == nil ? "ok  " : "FAIL"
      report(
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
      report(TestRecord.scenario(outcome).json.jsonString)
    }
  }

  func unreadable(_ file: String, _ error: ScenarioError) {
    failed += 1
    let detail = "\(error.line.map { "\(file):\($0):" } ?? "\(file):") \(error.message)"
    switch format {
    case .text:
      report("FAIL  \(file)  (unreadable)\n      \(detail)")
    case .tap:
      tapLine(passed: false, "\(file) (unreadable)", [detail])
    case .junit:
      junitCases.append(
        JUnitCase(
          file: file, name: "(unreadable)", line: error.line, failure: (error.message, detail)))
    case .json:
      report(TestRecord.unreadable(file: file, error).json.jsonString)
    }
  }

  func finish() {
    isFinished = true
    switch format {
    case .text: report("\(passed) passed, \(failed) failed")
    case .tap: report("1..\(passed + failed)\n# \(passed) passed, \(failed) failed")
    case .junit: report(JUnitCase.document(junitCases))
    case .json:
      report(
        JSONValue.object(["type": "summary", "passed": .int(passed), "failed": .int(failed)])
          .jsonString)
    }
  }

  private func report(_ line: String) {
    guard outputFailure == nil else { return }
    do {
      try write(line)
    } catch {
      outputFailure = error
    }
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
    report(
      (["\(passed ? "ok" : "not ok") \(number) - \(description)"] + detail.map { "# \($0)" })
        .joined(separator: "\n"))
  }

  private func show(_ value: JSONValue?) -> String {
    value.map(\.jsonString) ?? "(absent)"
  }
}

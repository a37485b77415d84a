import EventLoop
import JSON

/// A worker of `test -j N`: a process of this same binary that runs one scenario file and
/// prints its records as `--format json` lines, then an end line with how many of its scenarios
/// the filter matched (whether any file matched is for the parent to tell).
///
/// Processes rather than threads because a process has exactly one event loop; the parent
/// keeps its own for the workers' pipes and the scenarios of standard input.
enum TestWorker {
  /// The program a worker runs: this very binary, whatever its name or wherever it was started
  /// from, so that a team's own binary (`ComposableActorCommand.main(stores:)`) has its stores.
  static let program = "/proc/self/exe"

  /// The last line a worker prints: without it, the worker stopped early.
  static func endLine(matched: Int) -> String {
    JSONValue.object(["type": "worker", "matched": .int(matched)]).jsonString
  }

  /// A worker's lines are this binary's own and hold the stores' states, which no limit keeps
  /// as shallow as what is read from outside: a state deeper than a scenario line may be, in
  /// the four levels of its line.
  private static let maximumDepth = 4 * JSONParser.defaultMaxDepth

  /// How a worker ran, or why it could not start.
  typealias Run = Result<ProcessResult, any Error>

  /// Runs a worker with `arguments` and waits for it to end.
  static func run(_ arguments: [String], on loop: EventLoop) async -> Run {
    do {
      return .success(
        try await loop.runProcess(
          program, arguments: arguments, argumentZero: CommandLine.arguments.first))
    } catch {
      return .failure(error)
    }
  }

  /// What a worker's run of `file` adds to the report, and how many scenarios matched: its
  /// records, then, unless it ran to the end, a failure of the file that says what happened.
  static func records(of file: String, _ run: Run) -> (records: [TestRecord], matched: Int) {
    let result: ProcessResult
    switch run {
    case .success(let value): result = value
    case .failure(let error):
      return (
        [.unreadable(file: file, ScenarioError("cannot start a worker process: \(error)"))], 0
      )
    }
    var records: [TestRecord] = []
    var matched: Int?
    var problem: String?
    for line in result.output.split(separator: UInt8(ascii: "\n")) {
      let json = try? JSONParser.parse(Array(line), maxDepth: maximumDepth)
      if matched == nil, let json, let record = TestRecord(json: json) {
        records.append(record)
      } else if matched == nil, json?["type"]?.stringValue == "worker",
        let count = json?["matched"]?.intValue
      {
        matched = count
      } else {
        let text = String(decoding: line.prefix(80), as: UTF8.self)
        problem = "the worker process printed something other than its results: \(text)"
        break
      }
    }
    switch result.termination {
    case .signaled(let signal): problem = "the worker process ended with signal \(signal)"
    case .exited(let status) where status != 0:
      problem = "the worker process exited with status \(status)"
    case .exited:
      if problem == nil && matched == nil {
        problem = "the worker process ended without reporting the whole file"
      }
    }
    if let problem {
      records.append(.unreadable(file: file, ScenarioError(problem)))
    }
    let scenarios = records.count { if case .scenario = $0 { true } else { false } }
    return (records, matched ?? scenarios)
  }
}

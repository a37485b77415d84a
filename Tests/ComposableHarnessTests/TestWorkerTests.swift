import ComposableRuntime
import EventLoop
import JSON
import XCTest

@testable import ComposableHarness

/// A `test -j` worker's records, read back by its parent: the parent must report exactly what
/// it would have had it run the scenarios itself, and a worker that did not run to the end must
/// fail its file.
final class TestWorkerTests: XCTestCase {
  private let failure = StepFailure(
    line: 4, step: "send counter.incrTapped", message: "the state differs",
    differences: [
      .init(path: "/count", expected: 2, actual: 1),
      .init(path: "/todos/0", expected: nil, actual: ["title": "é \"quoted\"\n", "done": false]),
      .init(path: "/ratio", expected: 0.1, actual: .null),
      .init(path: "/big", expected: 1e300, actual: nil),
    ],
    report: ["  {", "−   count: 2", "+   count: 1", "  }"])

  private var records: [TestRecord] {
    [
      .scenario(
        ScenarioOutcome(scenario: Scenario(file: "a.jsonl", line: 1, name: "up"), failure: nil)),
      .scenario(
        ScenarioOutcome(
          scenario: Scenario(file: "a.jsonl", line: 3, name: "down"), failure: failure)),
      .scenario(
        ScenarioOutcome(
          scenario: Scenario(file: "a.jsonl", line: 9, name: "no report"),
          failure: StepFailure(
            line: 10, step: "end", message: "an effect is still running",
            differences: [.init(path: "running[0]", expected: nil, actual: ["started": 1])]))),
      .unreadable(file: "b.jsonl", ScenarioError("not JSON", line: 7)),
      .unreadable(file: "c.jsonl", ScenarioError("cannot read c.jsonl: No such file")),
    ]
  }

  /// What a worker prints for `records`, as `TestReport.runAsWorker` prints it.
  private func output(_ records: [TestRecord], matched: Int?) -> [UInt8] {
    let lines =
      records.map(\.json.jsonString) + (matched.map { [TestWorker.endLine(matched: $0)] } ?? [])
    return Array(lines.map { $0 + "\n" }.joined().utf8)
  }

  private func read(_ output: [UInt8], _ termination: ProcessResult.Termination) -> (
    records: [TestRecord], matched: Int
  ) {
    TestWorker.records(
      of: "a.jsonl", .success(ProcessResult(output: output, termination: termination)))
  }

  /// Every format's lines for `records`.
  private func report(_ records: [TestRecord]) throws -> [String] {
    let loop = try EventLoop()
    StoreActor.install(executor: loop.executor)
    defer { try? loop.shutdown() }
    return StoreActor.assumeIsolated {
      TestReport.Format.allCases.flatMap { format in
        let report = TestReport(format: format, harness: TallyStore.harness)
        var lines: [String] = []
        report.write = { lines.append($0) }
        records.forEach(report.add)
        report.finish()
        return lines
      }
    }
  }

  func testAWorkersRecordsReportExactlyAsTheOriginals() throws {
    let (decoded, matched) = read(output(records, matched: 3), .exited(0))
    XCTAssertEqual(matched, 3)
    XCTAssertEqual(decoded.map(\.json), records.map(\.json))
    XCTAssertEqual(try report(decoded), try report(records))
  }

  func testTheJSONFailureHasTheReportLinesTheTextShows() {
    let json = TestRecord.scenario(
      ScenarioOutcome(scenario: Scenario(file: "a.jsonl", line: 3, name: "down"), failure: failure)
    ).json
    XCTAssertEqual(json["failure"]?["report"], .array(failure.report.map(JSONValue.string)))
  }

  func testAWorkerThatCrashedFailsItsFileAfterWhatItReported() {
    var bytes = output(Array(records.prefix(2)), matched: nil)
    bytes += Array(#"{"type":"scen"#.utf8)
    let (decoded, matched) = read(bytes, .signaled(11))
    XCTAssertEqual(
      decoded.map(\.json),
      records.prefix(2).map(\.json) + [unreadable("the worker process ended with signal 11")])
    XCTAssertEqual(matched, 2)
  }

  func testWhatAWorkerMustNotDoFailsItsFile() throws {
    XCTAssertEqual(
      read(Array("Fatal error: oops\n".utf8), .exited(0)).records.map(\.json),
      [unreadable("the worker process printed something other than its results: Fatal error: oops")]
    )
    XCTAssertEqual(
      read(output(records, matched: nil), .exited(0)).records.last?.json,
      unreadable("the worker process ended without reporting the whole file"))
    XCTAssertEqual(
      read(output([], matched: 0), .exited(70)).records.map(\.json),
      [unreadable("the worker process exited with status 70")])
    let spawnFailure = LoopError(code: -2, operation: "uv_spawn /proc/self/exe")
    XCTAssertEqual(
      TestWorker.records(of: "a.jsonl", .failure(spawnFailure)).records.map(\.json),
      [unreadable("cannot start a worker process: \(spawnFailure)")])
  }

  /// A worker whose file has no scenario the filter matches has not failed: whether any file
  /// matched is for the parent to tell.
  func testAFileWithoutAMatchIsNoFailure() {
    let (decoded, matched) = read(output([], matched: 0), .exited(0))
    XCTAssertTrue(decoded.isEmpty)
    XCTAssertEqual(matched, 0)
  }

  private func unreadable(_ message: String) -> JSONValue {
    TestRecord.unreadable(file: "a.jsonl", ScenarioError(message)).json
  }
}

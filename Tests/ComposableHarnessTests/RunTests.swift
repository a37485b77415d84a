import ComposableHarness
import ComposableRuntime
import EventLoop
import XCTest

/// What a `test` run reported.
struct TestOutcome {
  let passed: Int
  let failed: Int
  /// The text report, line by line.
  let lines: [String]
}

/// Runs scenario files through `harness` on a loop of its own, as `test` does.
func runTests(_ paths: [String], harness: Harness) throws -> TestOutcome {
  let loop = try EventLoop()
  StoreActor.install(executor: loop.executor)
  defer { try? loop.shutdown() }
  let report = StoreActor.assumeIsolated { TestReport(format: .text, harness: harness) }
  nonisolated(unsafe) var lines: [String] = []
  StoreActor.assumeIsolated { report.write = { lines.append($0) } }
  Task(executorPreference: loop.executor) { await report.run(paths, on: loop) }
  loop.run()
  return StoreActor.assumeIsolated {
    XCTAssertTrue(report.isFinished)
    return TestOutcome(passed: report.passed, failed: report.failed, lines: lines)
  }
}

import ArgumentParser
import ComposableHarness
import ComposableRuntime

#if canImport(Glibc)
  import Glibc
#endif

extension ComposableActorCommand {
  /// `composable-actor test FILE...`: runs scenario files, like TCA's `TestStore` from any
  /// language.
  struct Test: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "test",
      abstract: "Run scenario files (JSON lines; see docs/SCENARIOS.md) against the stores.",
      discussion: """
        Prints one line per scenario and a last "N passed, N failed" line; a failure's step is \
        named FILE:LINE:. Exit codes: 0 when every scenario passed, 1 when one failed (an \
        unreadable file, or a --filter that matches nothing, counts as a failure), 64 for bad \
        arguments.
        """)

    @Argument(
      help: "Scenario files, folders (their .jsonl files, subfolders included) or - (stdin).")
    var files: [String]

    @Option(help: "Run only the scenarios whose name contains this text.")
    var filter: String?

    @Option(
      help: """
        text; json (one object per scenario, then a summary object); tap (TAP 13); junit \
        (JUnit XML, written at the end).
        """)
    var format: TestReport.Format = .text

    func run() throws {
      let loop = try EventLoop()
      StoreActor.install(executor: loop.executor)
      let report = StoreActor.assumeIsolated {
        TestReport(format: format, harness: ComposableActorCommand.harness)
      }
      Task(executorPreference: loop.executor) { [files, filter] in
        await report.run(files, filter: filter, on: loop)
      }
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

extension TestReport.Format: ExpressibleByArgument {}

struct RuntimeError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

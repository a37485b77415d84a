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
        named FILE:LINE:. Files run in parallel (--jobs) and are reported in order. Exit codes: \
        0 when every scenario passed, 1 when one failed (an unreadable file, or a --filter that \
        matches nothing, counts as a failure), 64 for bad arguments, 74 when the report cannot \
        be written.
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

    @Option(
      name: [.customShort("j", allowingJoined: true), .long],
      help: """
        How many files run at once, each in a process of its own (default: the number of \
        cores); the report is the same as with 1, where every file runs in this process.
        """)
    var jobs: Int?

    /// Runs the one file given for a parent `test -j`, printing what `TestWorker` reads.
    @Flag(help: .hidden)
    var worker = false

    func validate() throws {
      if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
      if worker && files.count != 1 { throw ValidationError("--worker runs exactly one file") }
    }

    func run() throws {
      try ComposableActorCommand.requireAgreeingActionLists()
      let loop = try EventLoop()
      StoreActor.install(executor: loop.executor)
      let report = StoreActor.assumeIsolated {
        TestReport(format: worker ? .json : format, harness: ComposableActorCommand.harness)
      }
      let workers = TestReport.Workers(
        count: jobs ?? EventLoop.availableParallelism,
        arguments: { [filter] file in
          // `--filter=` and `--` keep a filter or a file name that starts with `-` an argument.
          ["test", "--worker"] + (filter.map { ["--filter=\($0)"] } ?? []) + ["--", file]
        })
      Task(executorPreference: loop.executor) { [files, filter, worker] in
        if worker {
          await report.runAsWorker(files[0], filter: filter, on: loop)
        } else {
          await report.run(files, filter: filter, workers: workers, on: loop)
        }
      }
      loop.run()
      try? loop.shutdown()
      let (finished, failed, outputFailure) = StoreActor.assumeIsolated {
        (report.isFinished, report.failed, report.outputFailure)
      }
      guard finished else {
        throw RuntimeError("the scenarios stopped before the end (the loop ran out of work)")
      }
      if let outputFailure {
        throw ComposableActorCommand.failure(of: "test", outputFailure.reason, code: 74)
      }
      // A worker's failures are in its records: its status says whether it ran to the end.
      if failed > 0 && !worker { throw ExitCode(1) }
    }
  }
}

extension TestReport.Format: ExpressibleByArgument {}

struct RuntimeError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

import ArgumentParser
import ComposableHarness

extension ComposableActorCommand {
  /// `composable-actor replay FILE`: re-reduces a recording and checks every patch.
  struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "replay",
      abstract: "Re-reduce a --record log without running effects, checking every state.",
      discussion: """
        The actions effects sent are in the log, so no effect runs; each action's time is the \
        recorded one. Replay stops at the first action that does not lead to the state its \
        recorded patch leads to, and reports it on stderr. Exit codes: 0 when every state \
        matched, 1 at a divergence, 65 for an unreadable recording, 64 for bad arguments, 74 \
        when standard output cannot be written.
        """)

    @Argument(help: "A file written by `composable-actor --record`.")
    var file: String

    @Option(help: "Stop after this seq and print every store's snapshot there (time travel).")
    var until: Int?

    @Flag(help: "Print each replayed action line, as the run printed it.")
    var emit = false

    @Flag(help: "Print a scenario file (see `test`) that asserts what the recording holds.")
    var toScenario = false

    @Option(
      help: ArgumentHelp(
        "text, or json: one line on stdout, replayed or the divergence with the paths that "
          + "differ and what changed in the stores since the recording."))
    var format: ReportFormat = .text

    enum ReportFormat: String, ExpressibleByArgument {
      case text, json
    }

    func validate() throws {
      if toScenario && (emit || until != nil) {
        throw ValidationError("--to-scenario prints a scenario only: no --emit or --until")
      }
      if format == .json && (emit || until != nil || toScenario) {
        throw ValidationError(
          "--format json prints the outcome only: no --emit, --until or --to-scenario")
      }
    }

    func run() throws {
      let replay = ComposableHarness.Replay(
        file: file, until: until, emit: emit, toScenario: toScenario, json: format == .json,
        harness: ComposableActorCommand.harness)
      let code = replay.run()
      if code != 0 { throw ExitCode(code) }
    }
  }
}

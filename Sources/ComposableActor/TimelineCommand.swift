import ArgumentParser
import ComposableHarness

extension ComposableActorCommand {
  /// `composable-actor timeline FILE`: draws a recording, as a page or as text.
  struct Timeline: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "timeline",
      abstract:
        "Draw a --record log: a lane per store instance, every action, every effect's life.",
      discussion: """
        html writes one self-contained page (nothing fetched) with a lane per store instance \
        (the store's default one, and each named one: primes "alice"), each \
        effect as a bar from its start to its end, a step list that shows the state and the \
        difference each step made, and filters. text writes the same lanes as plain text, \
        for a CI log. Effects appear when the run was recorded with --trace effects. Exit \
        codes: 0, 64 for bad arguments, 65 for an unreadable recording, 73 when the output \
        cannot be written.
        """)

    @Argument(help: "A file written by `composable-actor run --record`.")
    var file: String

    @Option(
      name: [.short, .long], help: "The file to write (atomically); standard output if not given.")
    var output: String?

    @Option(help: "html (a page to open in a browser) or text (swimlanes).")
    var format: ComposableHarness.Timeline.Format = .html

    @Option(
      name: .customLong("store"),
      help: "text: draw only this store, every instance of it (repeatable).")
    var stores: [String] = []

    @Option(
      name: .customLong("instance"),
      help: "text: draw only this named instance, of the --store stores if given (repeatable).")
    var instances: [String] = []

    @Option(help: "text: the width to fit the lanes in, in characters.")
    var width = 120

    func validate() throws {
      if format == .html && !stores.isEmpty {
        throw ValidationError("--store is for --format text: the page filters stores itself")
      }
      if format == .html && !instances.isEmpty {
        throw ValidationError(
          "--instance is for --format text: the page filters instances itself")
      }
      // Each lane is padded to its share: a width near Int.max asked for exabytes of spaces.
      if !(40...10_000).contains(width) {
        throw ValidationError("--width must be between 40 and 10000")
      }
    }

    func run() throws {
      let code = ComposableHarness.Timeline(
        file: file, format: format, output: output, stores: stores, instances: instances,
        width: width,
        harness: ComposableActorCommand.harness
      ).run()
      if code != 0 { throw ExitCode(code) }
    }
  }
}

extension ComposableHarness.Timeline.Format: ExpressibleByArgument {}

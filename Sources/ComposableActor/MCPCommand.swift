import ArgumentParser
import ComposableRuntime
@_spi(Hosting) import Protocol

extension ComposableActorCommand {
  /// `run`, over the Model Context Protocol: the same stores, options, clock and services, with
  /// each host action a tool and each store's state a resource.
  struct MCP: ParsableCommand {
    static var configuration: CommandConfiguration {
      CommandConfiguration(
        commandName: "mcp",
        abstract:
          "Serve the stores over the Model Context Protocol (JSON-RPC 2.0 lines) on stdin and "
          + "stdout: each host action a tool, each store's state a resource.",
        discussion: """
          Takes run's options. A tool call sends its action and answers once the effects it \
          started finished, or after --call-wait seconds, with the action lines it caused and \
          the resulting state. Exit codes as run's; closing stdin cancels running effects and \
          exits 0.
          """ + Run.storeOptionsHelp)
    }

    @OptionGroup var options: Run

    @Option(
      help: ArgumentHelp(
        "The longest a tool call waits for the effects its action started before it answers "
          + "with what happened so far.", valueName: "seconds"))
    var callWait: Double = 5

    func validate() throws {
      guard callWait >= 0, callWait <= Run.longestWait else {
        throw ValidationError(
          "--call-wait must be between 0 and \(Int(Run.longestWait)) seconds")
      }
    }

    func run() throws {
      var mcp = MCPConfiguration()
      mcp.callWait = .milliseconds(Int64(callWait * 1000))
      var configuration = try options.configuration()
      configuration.recordedArguments = recordedArguments
      try Run.run(configuration, mcp: mcp)
    }

    /// A recording made under `mcp` replays as `run`'s: its arguments without `mcp` and
    /// `--call-wait`.
    private var recordedArguments: [String] {
      var arguments = RunOptions.recordedArguments
      if arguments.first == "mcp" { arguments.removeFirst() }
      return removingOptions(["--call-wait"], from: arguments)
    }
  }
}

import ArgumentParser
import ComposableRuntime
import Logging
@_spi(Hosting) import Protocol

#if canImport(Glibc)
  import Glibc
#endif

extension ComposableActorCommand {
  /// The main job: read actions on stdin, write reduced actions and patches on stdout.
  struct Run: ParsableCommand {
    // Computed: the discussion lists the options of the stores `main(stores:)` was given.
    static var configuration: CommandConfiguration {
      CommandConfiguration(
        commandName: "run",
        abstract:
          "Read JSON-lines actions on stdin; write each reduced action and its state patch.",
        discussion: """
          Exit codes: 0 after end of input, {"cmd":"quit"}, or a closed stdout; 128 + the \
          signal's number after SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 or SIGALRM \
          (130 after SIGINT, 143 after SIGTERM; the exit line is still written); 64 for bad \
          arguments; 70 for an internal error; 74 when --record could not write its file, \
          --state-dir cannot be opened (in use by another process, read-only, damaged, written \
          by a newer binary) or closed, --state-url cannot be reached or used (a wrong \
          password, tables of a newer binary), or stdout failed other than by its reader going \
          away (a full disk).
          """ + storeOptionsHelp)
    }

    @Option(help: "Longest input line accepted, in bytes; longer lines are skipped with an error.")
    var maxLineBytes = RunConfiguration.defaults.maxLineBytes

    @Option(
      help: ArgumentHelp(
        "After end of input, how long to wait for running effects before cancelling them.",
        valueName: "seconds"))
    var linger = RunConfiguration.defaults.linger

    @Option(
      help: "One line per reduced action (actions), or one merged line per loop iteration (ticks).")
    var emit = RunConfiguration.defaults.emit

    @Option(
      help: ArgumentHelp(
        "What to trace on stdout besides the actions: effects (a line as each effect starts "
          + "and ends). Repeatable.", valueName: "kind"))
    var trace: [TraceKind] = []

    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel = RunConfiguration.defaults.logLevel

    @Option(
      help:
        "Where stores keep their files. Default: $XDG_DATA_HOME/<the binary's name>.")
    var dataDir: String?

    @Option(help: "Deepest nesting of arrays and objects accepted in an input line.")
    var maxDepth = RunConfiguration.defaults.maxDepth

    @Option(
      help: ArgumentHelp(
        "PEM file of the certificate authorities trusted for https (default: the system store).",
        valueName: "path"))
    var caFile: String?

    @Option(help: ArgumentHelp("Timeout of each HTTP request.", valueName: "seconds"))
    var httpTimeout = RunConfiguration.defaults.httpTimeout

    @Option(help: "Seed of every random choice the stores make; random when not given.")
    var seed: UInt64?

    @Option(
      help: ArgumentHelp(
        "live: real time. virtual: time starts at 0 and moves only on {\"cmd\":\"advance\"}; "
          + "{\"cmd\":\"settle\"} waits for effects; end of input settles, then cancels what "
          + "is left."))
    var clock = RunConfiguration.defaults.clock

    @Option(
      name: .customLong("max-advance-wakeups"),
      help: ArgumentHelp(
        "Under --clock virtual: the most deadlines one advance wakes sleepers at; past it the "
          + "advance stops short with an advance_limit error line.", valueName: "count"))
    var maxAdvanceWakeUps = RunConfiguration.defaults.maxAdvanceWakeUps

    @Option(
      help: ArgumentHelp(
        "Write a log of every reduced action (time, source, id, patch) for `replay`.",
        valueName: "path"))
    var record: String?

    @Option(
      help: ArgumentHelp(
        "The most named instances of one store in memory; activating one more is refused with "
          + "an instance_limit error line.", valueName: "count"))
    var maxInstances = RunConfiguration.defaults.maxInstances

    @Option(
      help: ArgumentHelp(
        "Store every instance's state in this folder (SQLite), each change before the line that "
          + "shows it is written; a later run on the folder reads each instance back on its "
          + "first line. One process at a time.", valueName: "folder"))
    var stateDir: String?

    @Option(
      help: ArgumentHelp(
        "Store every instance's state in PostgreSQL (a libpq URL, postgresql://user:password@"
          + "host:port/database), shared by every process given it: each instance is active in "
          + "one process at a time, claimed on its first line and released when it leaves "
          + "memory. In place of --state-dir.", valueName: "url"))
    var stateURL: String?

    @Option(
      help: ArgumentHelp(
        "With --state-url: this process's name among those sharing the database (default: the "
          + "host's name). A process started again with the same name takes its instances back "
          + "at once, and fences off the one it replaces.", valueName: "name"))
    var processID: String?

    @Option(
      help: ArgumentHelp(
        "With --state-url: how long this process's instances stay its own after its last "
          + "commit or renewal (renewed every second); past it another process may take them "
          + "over.", valueName: "seconds"))
    var leaseSeconds: Double?

    @Option(
      help: ArgumentHelp(
        "With --state-dir: always (each commit reaches the disk before its lines are written), "
          + "batch (within about a second, off the loop), or never (when the system chooses). "
          + "A killed process loses nothing under any; power loss, what was not on disk.",
        valueName: "policy"))
    var fsync: FsyncPolicy?

    @Option(
      help: ArgumentHelp(
        "With --state-dir: an instance with no action and no effect running for this long "
          + "leaves memory (its state is stored); its next line reads it back.",
        valueName: "seconds"))
    var passivateAfter: Double?

    @Option(
      help: ArgumentHelp(
        "With --state-dir: the most named instances of one store kept in memory; past it the "
          + "least recently used idle ones leave memory first.", valueName: "count"))
    var maxActive: Int?

    @Flag(
      help: ArgumentHelp(
        "Accept actions only effects send (responses, timer ticks) from the host: for tools "
          + "that inject them, such as load tests. Without it they are refused (effect_action)."))
    var allowEffectActions = RunConfiguration.defaults.allowEffectActions

    /// The stores' own options, listed under STORE OPTIONS: the parser keeps what it does not
    /// know here, and the catalog reads it.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var storeArguments: [String] = []

    func validate() throws {
      try options.validate()
    }

    func run() throws {
      try Self.run(configuration(), mcp: nil)
    }

    /// Runs the stores as `configuration` says, speaking MCP instead of JSON lines when `mcp`
    /// is given, and throws the exit code of a run that did not end well.
    static func run(_ configuration: RunConfiguration, mcp: MCPConfiguration?) throws {
      let code: Int32
      do {
        var configuration = configuration
        configuration.mcp = mcp
        code = try Runtime.run(ComposableActorCommand.catalog, configuration)
      } catch let error as InstanceStorageError {
        let option = configuration.stateLocation?.option ?? "--state-dir"
        let message = Array(
          "\(ComposableActorCommand.identity.name): \(option): \(error)\n".utf8)
        _ = message.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        throw ExitCode(74)
      } catch {
        // The process could not start its loop or its standard streams: EX_SOFTWARE.
        let message = Array("\(ComposableActorCommand.identity.name): \(error)\n".utf8)
        _ = message.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        throw ExitCode(70)
      }
      if code != 0 { throw ExitCode(code) }
    }
  }
}

extension ComposableActorCommand.Run {
  /// The options parsed, for the runtime. Throws when the stores' options do not parse.
  func configuration() throws -> RunConfiguration {
    try options.configuration()
  }

  /// The values the parser read, for `RunOptions` to check and turn into a configuration.
  var options: RunOptions {
    RunOptions(
      maxLineBytes: maxLineBytes, linger: linger, emit: emit, trace: trace, logLevel: logLevel,
      dataDir: dataDir, maxDepth: maxDepth, caFile: caFile, httpTimeout: httpTimeout, seed: seed,
      clock: clock, maxAdvanceWakeUps: maxAdvanceWakeUps, record: record,
      maxInstances: maxInstances, stateDir: stateDir, stateURL: stateURL, processID: processID,
      leaseSeconds: leaseSeconds, fsync: fsync, passivateAfter: passivateAfter,
      maxActive: maxActive, allowEffectActions: allowEffectActions,
      storeArguments: storeArguments)
  }

  /// `RunConfiguration`'s defaults, which are run's options', with the stores' options parsed
  /// from `storeArguments`.
  static func configuration(storeArguments: [String]) throws -> RunConfiguration {
    let storeOptions: StoreOptionValues
    do {
      storeOptions = try ComposableActorCommand.catalog.parseOptions(storeArguments)
    } catch {
      throw ValidationError(error.description)
    }
    return RunConfiguration(
      name: ComposableActorCommand.identity.name, version: ComposableActorCommand.identity.version,
      storeOptions: storeOptions)
  }

  /// `--process-id`'s default: one process per machine needs no name of its own.
  static var hostName: String {
    var name = [UInt8](repeating: 0, count: 256)
    let named = name.withUnsafeMutableBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { gethostname($0.baseAddress!, $0.count - 1) == 0 }
    }
    guard named else { return "localhost" }
    return String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)
  }

  /// The longest `--linger` and `--http-timeout`, in seconds: a day.
  static let longestWait = 86_400.0

  /// The long names of run's own options and mcp's, which no store may declare. An array: a
  /// `Set<String>` made the runtime scan every conformance record of the binary for
  /// `String: Hashable` when a run given arguments first read it.
  static let ownOptionNames: [String] = [
    "max-line-bytes", "linger", "emit", "log-level", "data-dir", "max-depth", "ca-file",
    "http-timeout", "seed", "clock", "max-advance-wakeups", "max-instances", "record",
    "state-dir", "state-url", "process-id", "lease-seconds", "fsync", "passivate-after",
    "max-active",
    "allow-effect-actions",
    "trace", "help", "call-wait",
    "version",
  ]

  /// The help's list of the stores' options. The parser reads the configuration whenever it
  /// parses, so the list is made only for a run that asks for help: making it (each store's
  /// defaults, described) would be a tenth of the start-up's instructions.
  static var storeOptionsHelp: String {
    let helpWords: Set<String> = ["help", "--help", "-h"]
    guard CommandLine.arguments.dropFirst().contains(where: helpWords.contains) else { return "" }
    var text = ""
    for (store, options) in ComposableActorCommand.catalog.options where !options.isEmpty {
      text += "\n\nOptions of the \(store) store:"
      for option in options {
        text += "\n--\(option.name) <\(option.valueName)>: \(option.help)"
        if let value = option.defaultValue { text += " (default: \(value))" }
      }
    }
    return text
  }
}

extension EmitMode: ExpressibleByArgument {}

extension FsyncPolicy: ExpressibleByArgument {}

extension TraceKind: ExpressibleByArgument {}

extension ClockMode: ExpressibleByArgument {}

extension Logger.Level: @retroactive ExpressibleByArgument {}

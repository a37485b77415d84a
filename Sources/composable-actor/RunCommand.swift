import ArgumentParser
import Logging
import Protocol

#if canImport(Glibc)
  import Glibc
#endif

extension ComposableActor {
  /// The main job: read actions on stdin, write reduced actions and patches on stdout.
  struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "run",
      abstract: "Read JSON-lines actions on stdin; write each reduced action and its state patch.",
      discussion: """
        Exit codes: 0 after end of input, {"cmd":"quit"}, or a closed stdout; 130 after SIGINT \
        and 143 after SIGTERM (the exit line is still written); 64 for bad arguments; 70 for \
        an internal error.
        """)

    @Option(help: "Longest input line accepted, in bytes; longer lines are skipped with an error.")
    var maxLineBytes = 1_048_576

    @Option(
      help: ArgumentHelp(
        "After end of input, how long to wait for running effects before cancelling them.",
        valueName: "seconds"))
    var linger: Double = 10

    @Option(
      help: "One line per reduced action (actions), or one merged line per loop iteration (ticks).")
    var emit: EmitMode = .actions

    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    @Option(
      help:
        "Where saved data lives (favorite-primes.json). Default: $XDG_DATA_HOME/composable-actor.")
    var dataDir: String?

    @Option(help: "Largest n the nth-prime computation answers (about 2 s of CPU at 10^9).")
    var maxNthPrime = 1_000_000_000

    @Option(help: "Deepest nesting of arrays and objects accepted in an input line.")
    var maxDepth = 64

    @Option(help: "Base URL of the todos API (randomTodo): GET <url>/todos/<id>.")
    var todosURL = "https://jsonplaceholder.typicode.com"

    @Option(
      help: ArgumentHelp(
        "Base URL of the votes API (votes): Tests/servers/fixture_server.py serves it, on this "
          + "port under `make demo`."))
    var votesURL = "http://127.0.0.1:8765"

    @Option(
      help: ArgumentHelp(
        "Wolfram|Alpha app id: the nth prime comes from its API instead of libprimesieve.",
        valueName: "id"))
    var wolframAppID: String?

    @Option(help: "Base URL of the Wolfram|Alpha API (with --wolfram-app-id).")
    var wolframURL = "https://api.wolframalpha.com"

    @Option(
      help: ArgumentHelp(
        "PEM file of the certificate authorities trusted for https (default: the system store).",
        valueName: "path"))
    var caFile: String?

    @Option(help: ArgumentHelp("Timeout of each HTTP request.", valueName: "seconds"))
    var httpTimeout: Double = 10

    @Option(help: "URL the websocket store connects to.")
    var websocketURL = "wss://echo.websocket.events"

    @Option(help: ArgumentHelp("Interval of the websocket store's pings.", valueName: "seconds"))
    var pingInterval: Double = 10

    @Option(help: "Messages the websocket store keeps (the last ones).")
    var maxReceived = 1000

    @Option(help: "Seed of every random choice (the random todo's id); random when not given.")
    var seed: UInt64?

    @Option(
      help: ArgumentHelp(
        "live: real time. virtual: time starts at 0 and moves only on {\"cmd\":\"advance\"}; "
          + "{\"cmd\":\"settle\"} waits for effects; end of input settles, then cancels what "
          + "is left."))
    var clock: ClockMode = .live

    @Option(
      help: ArgumentHelp(
        "Write a log of every reduced action (time, source, id, patch) for `replay`.",
        valueName: "path"))
    var record: String?

    func validate() throws {
      guard maxLineBytes >= 64 else {
        throw ValidationError("--max-line-bytes must be at least 64")
      }
      guard linger >= 0, linger.isFinite else { throw ValidationError("--linger must be >= 0") }
      guard maxNthPrime >= 1 else { throw ValidationError("--max-nth-prime must be at least 1") }
      guard (1...10_000).contains(maxDepth) else {
        throw ValidationError("--max-depth must be between 1 and 10000")
      }
      guard httpTimeout > 0, httpTimeout.isFinite else {
        throw ValidationError("--http-timeout must be > 0")
      }
      guard pingInterval > 0, pingInterval.isFinite else {
        throw ValidationError("--ping-interval must be > 0")
      }
      guard maxReceived >= 1 else { throw ValidationError("--max-received must be at least 1") }
      if record != nil && emit != .actions {
        throw ValidationError("--record needs --emit actions: it logs one patch per action")
      }
      if let caFile, access(caFile, R_OK) != 0 {
        throw ValidationError("--ca-file \(caFile): \(String(cString: strerror(errno)))")
      }
    }

    func run() throws {
      let code: Int32
      do {
        code = try Runtime.run(self)
      } catch {
        // The process could not start its loop or its standard streams: EX_SOFTWARE.
        let message = Array("composable-actor: \(error)\n".utf8)
        _ = message.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        throw ExitCode(70)
      }
      if code != 0 { throw ExitCode(code) }
    }
  }
}

extension EmitMode: ExpressibleByArgument {}

/// Where stores' time comes from.
enum ClockMode: String, CaseIterable, ExpressibleByArgument {
  case live
  case virtual
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

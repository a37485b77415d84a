import ArgumentParser
import ComposableRuntime
import Logging
@_spi(Hosting) import Protocol

#if canImport(Glibc)
  import Glibc
#endif

/// `run`'s options as values: what its parser read, or what `init?(commonArguments:)` read
/// without it. Checked and turned into the runtime's configuration here, the same for both.
struct RunOptions: Equatable {
  var maxLineBytes = RunConfiguration.defaults.maxLineBytes
  var linger = RunConfiguration.defaults.linger
  var emit = RunConfiguration.defaults.emit
  var trace: [TraceKind] = []
  var logLevel = RunConfiguration.defaults.logLevel
  var dataDir: String?
  var maxDepth = RunConfiguration.defaults.maxDepth
  var caFile: String?
  var httpTimeout = RunConfiguration.defaults.httpTimeout
  var seed: UInt64?
  var clock = RunConfiguration.defaults.clock
  var maxAdvanceWakeUps = RunConfiguration.defaults.maxAdvanceWakeUps
  var record: String?
  var maxInstances = RunConfiguration.defaults.maxInstances
  var stateDir: String?
  var stateURL: String?
  var processID: String?
  var leaseSeconds: Double?
  var fsync: FsyncPolicy?
  var passivateAfter: Double?
  var maxActive: Int?
  var allowEffectActions = RunConfiguration.defaults.allowEffectActions
  var storeArguments: [String] = []

  func validate() throws {
    guard maxLineBytes >= 64 else {
      throw ValidationError("--max-line-bytes must be at least 64")
    }
    // Bounded, as the ping interval is: each becomes whole milliseconds in an Int64, and
    // recordings and scenarios carry these arguments too.
    guard (0...ComposableActorCommand.Run.longestWait).contains(linger) else {
      throw ValidationError(
        "--linger must be between 0 and \(Int(ComposableActorCommand.Run.longestWait)) seconds")
    }
    guard maxAdvanceWakeUps >= 1 else {
      throw ValidationError("--max-advance-wakeups must be at least 1")
    }
    guard maxInstances >= 1 else {
      throw ValidationError("--max-instances must be at least 1")
    }
    guard (1...10_000).contains(maxDepth) else {
      throw ValidationError("--max-depth must be between 1 and 10000")
    }
    guard httpTimeout > 0, httpTimeout <= ComposableActorCommand.Run.longestWait else {
      throw ValidationError(
        "--http-timeout must be more than 0 and at most \(Int(ComposableActorCommand.Run.longestWait)) seconds"
      )
    }
    if stateDir != nil && stateURL != nil {
      throw ValidationError("--state-dir and --state-url are two places to store: give one")
    }
    if stateDir == nil && stateURL == nil {
      for (option, given) in [
        ("--passivate-after", passivateAfter != nil), ("--max-active", maxActive != nil),
      ] where given {
        throw ValidationError(
          "\(option) needs --state-dir or --state-url: without one nothing is stored")
      }
    }
    if stateDir == nil, fsync != nil {
      throw ValidationError(
        "--fsync needs --state-dir: it is SQLite's (PostgreSQL's own settings say when a "
          + "commit reaches its disk)")
    }
    if stateURL == nil {
      for (option, given) in [
        ("--process-id", processID != nil), ("--lease-seconds", leaseSeconds != nil),
      ] where given {
        throw ValidationError("\(option) needs --state-url")
      }
    }
    if let processID, processID.isEmpty || processID.utf8.count > 256 {
      throw ValidationError("--process-id must be 1 to 256 bytes")
    }
    if let leaseSeconds, !(3...ComposableActorCommand.Run.longestWait).contains(leaseSeconds) {
      throw ValidationError(
        "--lease-seconds must be between 3 and \(Int(ComposableActorCommand.Run.longestWait)) seconds (the lease is "
          + "renewed every second)")
    }
    if let passivateAfter,
      !(0.001...ComposableActorCommand.Run.longestWait).contains(passivateAfter)
    {
      throw ValidationError(
        "--passivate-after must be between 0.001 and \(Int(ComposableActorCommand.Run.longestWait)) seconds"
      )
    }
    if let maxActive, maxActive < 1 {
      throw ValidationError("--max-active must be at least 1")
    }
    if let option = stateDir != nil ? "--state-dir" : stateURL != nil ? "--state-url" : nil {
      let stores = ComposableActorCommand.catalog.storesWithoutDecodableState
      if !stores.isEmpty {
        throw ValidationError(
          "\(option) needs every store's state to be Decodable, to read it back: "
            + stores.joined(separator: ", ") + " is not")
      }
    }
    if record != nil && emit != .actions {
      throw ValidationError("--record needs --emit actions: it logs one patch per action")
    }
    do {
      _ = try ComposableActorCommand.catalog.parseOptions(storeArguments)
    } catch {
      throw ValidationError(error.description)
    }
    if let caFile, access(caFile, R_OK) != 0 {
      throw ValidationError("--ca-file \(caFile): \(String(cString: strerror(errno)))")
    }
  }

  /// The options parsed, for the runtime. Throws when the stores' options do not parse.
  func configuration() throws -> RunConfiguration {
    var configuration = try ComposableActorCommand.Run.configuration(storeArguments: storeArguments)
    configuration.maxLineBytes = maxLineBytes
    configuration.linger = linger
    configuration.emit = emit
    // Only when given: even an empty `Set<TraceKind>` made here, dropped again, made the
    // runtime scan the conformance records for `TraceKind: Hashable`.
    if !trace.isEmpty { configuration.traces = Set(trace) }
    configuration.logLevel = logLevel
    configuration.dataDirectory = dataDir
    configuration.maxDepth = maxDepth
    configuration.maxInstances = maxInstances
    configuration.caFile = caFile
    configuration.httpTimeout = httpTimeout
    configuration.seed = seed
    configuration.clock = clock
    configuration.maxAdvanceWakeUps = maxAdvanceWakeUps
    configuration.record = record
    if let stateDir {
      configuration.stateLocation = .folder(stateDir)
    } else if let stateURL {
      configuration.stateLocation = .database(
        url: stateURL, process: processID ?? ComposableActorCommand.Run.hostName,
        lease: .milliseconds(Int((leaseSeconds ?? 10) * 1000)))
    }
    configuration.fsync = fsync ?? RunConfiguration.defaults.fsync
    configuration.passivateAfter = passivateAfter
    configuration.maxActiveInstances = maxActive ?? RunConfiguration.defaults.maxActiveInstances
    configuration.allowEffectActions = allowEffectActions
    configuration.recordedArguments = Self.recordedArguments
    return configuration
  }

  /// The command line as given, without `run`, `--record`, `--seed` (the header keeps the
  /// seed itself): what a replay parses to rebuild the stores with the same options.
  static var recordedArguments: [String] {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "run" { arguments.removeFirst() }
    return removingOptions(
      [
        "--record", "--seed", "--state-dir", "--state-url", "--process-id", "--lease-seconds",
        "--fsync", "--passivate-after", "--max-active",
      ],
      from: arguments)
  }
}

extension RunOptions {
  /// Reads `arguments` (the process's, after its path) as `run`'s parser would, when they are
  /// in the forms hosts start the binary with: `run` or no command, run's options once each
  /// as `--name value` or `--name=value` (`--trace` as often as wanted), and stores' options as
  /// `--name value`. Nil for anything else (help, `--version`, another command, a value that
  /// starts with `-`, an option given twice, a value that does not convert), which the parser
  /// then reads, so its messages stay its own. The parser reflects over every option of every
  /// command to find the same values: 21 million instructions, six times the rest of the
  /// start-up.
  init?(commonArguments arguments: ArraySlice<String>) {
    var arguments = arguments
    if arguments.first == "run" {
      arguments.removeFirst()
    } else if let first = arguments.first, !first.hasPrefix("--") {
      return nil
    }
    self.init()
    // An array: a `Set<Substring>` made the runtime scan every conformance record of the
    // binary for `Substring: Hashable`, a tenth of the start-up.
    var given: [Substring] = []
    while let argument = arguments.popFirst() {
      guard argument.hasPrefix("--") else {
        // A store option's value: the parser keeps it for the stores, in order.
        guard Self.isPlainValue(argument) else { return nil }
        storeArguments.append(argument)
        continue
      }
      var name = argument.dropFirst(2)
      var value: String?
      if let equals = name.firstIndex(of: "=") {
        value = String(name[name.index(after: equals)...])
        name = name[..<equals]
      }
      guard ComposableActorCommand.Run.ownOptionNames.contains(String(name)) else {
        // A store's option. The parser's own reading of `--name=value` and of `--` is left
        // to it.
        guard value == nil, !name.isEmpty else { return nil }
        storeArguments.append(argument)
        continue
      }
      guard name == "trace" || !given.contains(name) else { return nil }
      given.append(name)
      if name == "allow-effect-actions" {
        guard value == nil else { return nil }
        allowEffectActions = true
        continue
      }
      if value == nil { value = arguments.popFirst() }
      guard let value, Self.isPlainValue(value), set(name, to: value) else { return nil }
    }
  }

  /// Whether the parser reads `argument` as a value whatever its position: not empty, not
  /// starting with `-`, and not a command's name.
  private static func isPlainValue(_ argument: String) -> Bool {
    !argument.isEmpty && !argument.hasPrefix("-") && !commandNames.contains(argument)
  }

  /// The names the parser reads as commands (and `help`).
  private static let commandNames: Set<String> = [
    "run", "mcp", "test", "simulate", "replay", "timeline", "export", "describe", "schemas",
    "types", "help",
  ]

  /// Sets run's option `name` to `value` converted as the parser converts it; false when it
  /// does not convert or `name` is not one this reads (`help`, `version`, mcp's).
  private mutating func set(_ name: Substring, to value: String) -> Bool {
    switch name {
    case "max-line-bytes": Self.convert(value, into: &maxLineBytes)
    case "linger": Self.convert(value, into: &linger)
    case "emit": Self.convert(value, into: &emit)
    case "trace": Self.convert(value, appendingTo: &trace)
    case "log-level": Self.convert(value, into: &logLevel)
    case "data-dir": Self.convert(value, into: &dataDir)
    case "max-depth": Self.convert(value, into: &maxDepth)
    case "ca-file": Self.convert(value, into: &caFile)
    case "http-timeout": Self.convert(value, into: &httpTimeout)
    case "seed": Self.convert(value, into: &seed)
    case "clock": Self.convert(value, into: &clock)
    case "max-advance-wakeups": Self.convert(value, into: &maxAdvanceWakeUps)
    case "record": Self.convert(value, into: &record)
    case "max-instances": Self.convert(value, into: &maxInstances)
    case "state-dir": Self.convert(value, into: &stateDir)
    case "state-url": Self.convert(value, into: &stateURL)
    case "process-id": Self.convert(value, into: &processID)
    case "lease-seconds": Self.convert(value, into: &leaseSeconds)
    case "fsync": Self.convert(value, into: &fsync)
    case "passivate-after": Self.convert(value, into: &passivateAfter)
    case "max-active": Self.convert(value, into: &maxActive)
    default: false
    }
  }

  private static func convert<Value: ExpressibleByArgument>(
    _ argument: String, into value: inout Value
  ) -> Bool {
    guard let converted = Value(argument: argument) else { return false }
    value = converted
    return true
  }

  private static func convert<Value: ExpressibleByArgument>(
    _ argument: String, into value: inout Value?
  ) -> Bool {
    guard let converted = Value(argument: argument) else { return false }
    value = converted
    return true
  }

  private static func convert<Value: ExpressibleByArgument>(
    _ argument: String, appendingTo values: inout [Value]
  ) -> Bool {
    guard let converted = Value(argument: argument) else { return false }
    values.append(converted)
    return true
  }
}

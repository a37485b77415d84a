import Logging
@_spi(Hosting) import Protocol

/// How `run` runs: what its command line said, parsed.
package struct RunConfiguration: Sendable {
  /// The binary's name: its default data folder's, and the HTTP client's user agent's.
  package var name: String
  /// The version `ready` and recordings name.
  package var version: String
  /// Longest input line accepted, in bytes.
  package var maxLineBytes = 1_048_576
  /// After end of input, how long running effects get before they are cancelled, in seconds.
  package var linger: Double = 10
  package var emit: EmitMode = .actions
  package var logLevel: Logger.Level = .warning
  /// Where stores keep files; `DataDirectory.defaultPath(for: name)` when nil.
  package var dataDirectory: String?
  /// Deepest nesting of arrays and objects accepted in an input line.
  package var maxDepth = 64
  /// The most named instances of one store in memory (`--max-instances`).
  package var maxInstances = Session.defaultMaxInstances
  /// Where instances are stored (`--state-dir` or `--state-url`): nil keeps every state in
  /// memory only.
  package var stateLocation: StateLocation?
  /// How long a commit waits for the disk (`--fsync`, SQLite's).
  package var fsync: FsyncPolicy = .batch
  /// With `stateLocation`: how long an instance stays in memory with no action and no effect
  /// running, in seconds (`--passivate-after`); nil keeps it until `maxActiveInstances` needs
  /// the room.
  package var passivateAfter: Double?
  /// The most named instances of one store kept in memory while idle (`--max-active`).
  package var maxActiveInstances = Session.defaultMaxActiveInstances
  /// PEM file of the certificate authorities trusted for https; the system's when nil.
  package var caFile: String?
  /// Timeout of each HTTP request, in seconds.
  package var httpTimeout: Double = 10
  /// Seed of every random choice; random when nil.
  package var seed: UInt64?
  package var clock: ClockMode = .live
  /// Under the virtual clock: the most deadlines one `advance` wakes sleepers at.
  package var maxAdvanceWakeUps = VirtualTimeControl.defaultMaximumWakeUps
  /// Whether a host may send the actions only effects send (`--allow-effect-actions`).
  package var allowEffectActions = false
  /// What stdout traces besides the actions (`--trace`).
  package var traces: Set<TraceKind> = []
  /// Where to record every reduced action, for `replay`.
  package var record: String?
  /// The arguments a recording keeps, to rebuild the stores as they were.
  package var recordedArguments: [String] = []
  package var storeOptions: StoreOptionValues
  /// Set by `mcp`: stdin and stdout speak the Model Context Protocol instead of JSON lines.
  package var mcp: MCPConfiguration?

  package init(name: String, version: String, storeOptions: StoreOptionValues) {
    self.name = name
    self.version = version
    self.storeOptions = storeOptions
  }

  /// Every setting at its default, for the command line's options to take theirs from: a run
  /// with no arguments starts from `init` without parsing them.
  package static let defaults = RunConfiguration(
    name: "", version: "", storeOptions: StoreOptionValues(names: [], values: []))
}

/// What `run --trace` may add to stdout.
package enum TraceKind: String, Sendable, CaseIterable {
  /// An `effect` line as each effect starts, finishes, fails or is cancelled.
  case effects
}

/// Where stores' time comes from.
package enum ClockMode: String, Sendable, CaseIterable {
  case live
  /// Time starts at 0 and moves only on `{"cmd":"advance"}`.
  case virtual
}

/// `arguments` without the options named, each with its value (`--name value` or
/// `--name=value`).
package func removingOptions(_ names: Set<String>, from arguments: [String]) -> [String] {
  var kept: [String] = []
  var skipNext = false
  for argument in arguments {
    if skipNext {
      skipNext = false
    } else if names.contains(argument) {
      skipNext = true
    } else if !names.contains(where: { argument.hasPrefix($0 + "=") }) {
      kept.append(argument)
    }
  }
  return kept
}

/// Where durable instances are kept.
package enum StateLocation: Sendable, Equatable {
  /// SQLite in a folder, which one process holds whole (`--state-dir`).
  case folder(String)
  /// PostgreSQL, shared by processes that claim instances one by one (`--state-url`): `process`
  /// is this one's `--process-id`, `lease` how long its claims outlive its last sign of life.
  case database(url: String, process: String, lease: Duration)

  /// The option that gave it, as messages name it.
  package var option: String {
    switch self {
    case .folder: "--state-dir"
    case .database: "--state-url"
    }
  }
}

import JSON
import LiveDependencies
import Protocol

#if canImport(Glibc)
  import Glibc
#endif

/// The first line of a recording: what is needed to rebuild the stores as they were.
///
/// ```json
/// {"type":"recording","version":1,"protocol":1,"binary":"0.1.0","stores":["primes",…],
///  "arguments":["--max-received","5"],"seed":"42","clock":"live","startTime":1763700000000}
/// ```
/// `arguments` are the run command's options (without `--record` and `--seed`); `seed` is a
/// string because a 64-bit seed does not fit JSON's safe integers; `startTime` is in
/// milliseconds since the Unix epoch (0 under the virtual clock). Every later line is an
/// `action` line as the run printed it, plus `t`: milliseconds since `startTime`.
struct RecordingHeader {
  static let version = 1

  var binary = ComposableActor.version
  var stores: [String]
  var arguments: [String]
  var seed: UInt64
  var clock: ClockMode
  var startTime: Int

  init(stores: [String], arguments: [String], seed: UInt64, clock: ClockMode, startTime: Int) {
    self.stores = stores
    self.arguments = arguments
    self.seed = seed
    self.clock = clock
    self.startTime = startTime
  }

  var json: JSONValue {
    [
      "type": "recording", "version": .int(Self.version), "protocol": 1,
      "binary": .string(binary), "stores": .array(stores.map(JSONValue.string)),
      "arguments": .array(arguments.map(JSONValue.string)), "seed": .string(String(seed)),
      "clock": .string(clock.rawValue), "startTime": .int(startTime),
    ]
  }

  init(_ json: JSONValue) throws(RecordingError) {
    guard case .object(let object) = json, object["type"] == "recording" else {
      throw RecordingError(line: 1, "not a recording: the first line must be its header")
    }
    guard object["version"] == .int(Self.version) else {
      throw RecordingError(
        line: 1,
        "recording version \(object["version"].map { "\($0)" } ?? "none") is not "
          + "supported (this binary reads version \(Self.version))")
    }
    func field<T>(_ name: String, _ read: (JSONValue) -> T?) throws(RecordingError) -> T {
      guard let value = object[name], let read = read(value) else {
        throw RecordingError(line: 1, "the header's \"\(name)\" is missing or malformed")
      }
      return read
    }
    binary = try field("binary") { $0.stringValue }
    stores = try field("stores") { $0.stringArray }
    arguments = try field("arguments") { $0.stringArray }
    seed = try field("seed") { $0.stringValue.flatMap { UInt64($0) } }
    clock = try field("clock") { $0.stringValue.flatMap(ClockMode.init(rawValue:)) }
    startTime = try field("startTime") { $0.intValue }
  }
}

/// One reduced action of a recording.
struct RecordedAction {
  /// Line number in the file.
  let line: Int
  let seq: Int
  let store: String
  let source: String
  let id: JSONValue?
  let action: JSONValue
  let patch: JSONValue
  /// Milliseconds since the header's `startTime`.
  let elapsed: Int

  init(_ json: JSONValue, line: Int) throws(RecordingError) {
    guard case .object(let object) = json, object["type"] == "action" else {
      throw RecordingError(line: line, "expected an action line")
    }
    guard let seq = object["seq"]?.intValue, let store = object["store"]?.stringValue,
      let source = object["source"]?.stringValue, let action = object["action"],
      case .array? = object["patch"], let elapsed = object["t"]?.intValue
    else {
      throw RecordingError(
        line: line, "an action line needs seq, store, source, action, patch and t")
    }
    self.line = line
    self.seq = seq
    self.store = store
    self.source = source
    self.id = object["id"]
    self.action = action
    self.patch = object["patch"]!
    self.elapsed = elapsed
  }
}

/// A recording read whole from disk.
struct RecordingFile {
  let header: RecordingHeader
  let actions: [RecordedAction]

  init(path: String) throws(RecordingError) {
    let bytes: [UInt8]
    do {
      bytes = try FileIO.readAll(path)
    } catch {
      throw RecordingError(line: nil, "cannot read \(path): \(error.reason)")
    }
    var header: RecordingHeader?
    var actions: [RecordedAction] = []
    var lineNumber = 0
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      lineNumber += 1
      if line.isEmpty { continue }
      let json: JSONValue
      do {
        json = try line.withUnsafeBytes { try JSONParser.parse($0) }
      } catch {
        throw RecordingError(
          line: lineNumber,
          lineNumber > 1 && bytes.last != UInt8(ascii: "\n")
            ? "the last line is cut short (was the recording interrupted?): \(error)"
            : "not JSON: \(error)")
      }
      if header == nil {
        header = try RecordingHeader(json)
      } else {
        actions.append(try RecordedAction(json, line: lineNumber))
      }
    }
    guard let header else { throw RecordingError(line: nil, "\(path) is empty") }
    self.header = header
    self.actions = actions
  }
}

struct RecordingError: Error, CustomStringConvertible {
  let line: Int?
  let message: String

  init(line: Int?, _ message: String) {
    self.line = line
    self.message = message
  }

  var description: String { line.map { "line \($0): \(message)" } ?? message }
}

extension ComposableActor.Run {
  /// The command line as given, without `run`, `--record` and `--seed` (the header keeps the
  /// seed itself): what a replay parses to rebuild the stores with the same options.
  var recordedArguments: [String] {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "run" { arguments.removeFirst() }
    return removingOptions(["--record", "--seed"], from: arguments)
  }
}

/// `arguments` without the options named, each with its value (`--name value` or
/// `--name=value`).
func removingOptions(_ names: Set<String>, from arguments: [String]) -> [String] {
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

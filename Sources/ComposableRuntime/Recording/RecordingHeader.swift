import JSON
@_spi(Hosting) import Protocol

/// The first line of a recording: what is needed to rebuild the stores as they were.
///
/// ```json
/// {"type":"recording","version":1,"protocol":1,"binary":"0.1.0","stores":["primes",…],
///  "arguments":["--max-received","5"],"seed":"42","clock":"live","startTime":1763700000000}
/// ```
/// `arguments` are the run command's options (without `--record` and `--seed`); `seed` is a
/// string because a 64-bit seed does not fit JSON's safe integers; `startTime` is in
/// milliseconds since the Unix epoch (0 under the virtual clock). `fingerprints` (absent in
/// older recordings) has a `StoreFingerprint` per store, so that a replay can say what changed in the
/// stores since. `answers` (absent in older recordings) says that the dependencies' answers were
/// recorded too (``AnswerLog``), and `files` holds the data folder's files as the run found
/// them, so that `replay --to-scenario` can run the effects again. `initialStates` (written by
/// `export`) has the state each instance of a store starts from, when the history begins at a
/// stored snapshot rather than at the store's initial state. Every later line is an
/// `action` line as the run printed it, plus `t`: milliseconds since `startTime`.
package struct RecordingHeader: Sendable {
  /// The format version this binary writes and reads.
  package static let version = 1

  /// The version of the binary that recorded.
  package var binary: String
  /// The names of the stores the run hosted.
  package var stores: [String]
  /// The run's options, without `--record` and `--seed`.
  package var arguments: [String]
  /// The seed of the run's random choices.
  package var seed: UInt64
  /// Whether the run's clock was live or virtual.
  package var clock: ClockMode
  /// When the run started, in milliseconds since the Unix epoch; 0 under the virtual
  /// clock.
  package var startTime: Int
  /// Each store's interface as the recording binary had it; empty in older recordings.
  package var fingerprints: [String: StoreFingerprint]
  /// The dependencies' answers are in the recording, as `answer` lines.
  package var recordsAnswers: Bool
  /// The data folder's files when the run started, by name: their text.
  package var files: [String: String]
  /// The state (a JSON object) every instance of a store starts from in a replay, by store,
  /// instead of its definition's: an exported history begins at its base snapshot, which no
  /// recorded action leads to.
  package var initialStates: [String: JSONValue]

  /// A header with what a replay needs to rebuild the run's stores.
  package init(
    binary: String, stores: [String], arguments: [String], seed: UInt64, clock: ClockMode,
    startTime: Int, fingerprints: [String: StoreFingerprint] = [:], recordsAnswers: Bool = false,
    files: [String: String] = [:], initialStates: [String: JSONValue] = [:]
  ) {
    self.initialStates = initialStates
    self.recordsAnswers = recordsAnswers
    self.files = files
    self.binary = binary
    self.stores = stores
    self.arguments = arguments
    self.seed = seed
    self.clock = clock
    self.startTime = startTime
    self.fingerprints = fingerprints
  }

  /// The header as its line's JSON.
  package var json: JSONValue {
    var object: JSONObject = [
      "type": "recording", "version": .int(Self.version), "protocol": 1,
      "binary": .string(binary), "stores": .array(stores.map(JSONValue.string)),
      "arguments": .array(arguments.map(JSONValue.string)), "seed": .string(String(seed)),
      "clock": .string(clock.rawValue), "startTime": .int(startTime),
    ]
    if !fingerprints.isEmpty {
      object["fingerprints"] = .object(
        JSONObject(stores.compactMap { store in fingerprints[store].map { (store, $0.json) } }))
    }
    if recordsAnswers {
      object["answers"] = true
      object["files"] = .object(
        JSONObject(files.keys.sorted().map { ($0, JSONValue.string(files[$0]!)) }))
    }
    if !initialStates.isEmpty {
      object["initialStates"] = .object(
        JSONObject(initialStates.keys.sorted().map { ($0, initialStates[$0]!) }))
    }
    return .object(object)
  }

  /// The header a recording's first line holds; throws when it is not one this binary reads.
  package init(_ json: JSONValue) throws(RecordingError) {
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
    let stores = try field("stores") { $0.stringArray }
    // A process hosts each store once: the timeline draws a lane per store, keyed by name.
    if let repeated = stores.indices.first(where: { stores[..<$0].contains(stores[$0]) }) {
      throw RecordingError(
        line: 1, "the header's \"stores\" lists \"\(stores[repeated])\" twice")
    }
    self.stores = stores
    arguments = try field("arguments") { $0.stringArray }
    seed = try field("seed") { $0.stringValue.flatMap { UInt64($0) } }
    clock = try field("clock") { $0.stringValue.flatMap(ClockMode.init(rawValue:)) }
    startTime = try field("startTime") { $0.intValue }
    guard (0...ActionTime.maximumMilliseconds).contains(startTime) else {
      throw RecordingError(
        line: 1,
        "the header's \"startTime\" is \(startTime): milliseconds since the Unix epoch are 0 "
          + "to \(ActionTime.maximumMilliseconds)")
    }
    recordsAnswers = object["answers"] == true
    files =
      object["files"] == nil
      ? [:]
      : try field("files") { value -> [String: String]? in
        guard case .object(let byName) = value else { return nil }
        var files: [String: String] = [:]
        for (name, content) in byName {
          guard let text = content.stringValue else { return nil }
          files[name] = text
        }
        return files
      }
    initialStates =
      object["initialStates"] == nil
      ? [:]
      : try field("initialStates") { value -> [String: JSONValue]? in
        guard case .object(let byStore) = value else { return nil }
        var states: [String: JSONValue] = [:]
        for (store, state) in byStore {
          guard case .object = state else { return nil }
          states[store] = state
        }
        return states
      }
    if object["fingerprints"] == nil {
      fingerprints = [:]
    } else {
      fingerprints = try field("fingerprints") { value -> [String: StoreFingerprint]? in
        guard case .object(let byStore) = value else { return nil }
        var fingerprints: [String: StoreFingerprint] = [:]
        for (store, json) in byStore {
          guard let fingerprint = StoreFingerprint(json: json) else { return nil }
          fingerprints[store] = fingerprint
        }
        return fingerprints
      }
    }
  }
}

/// Why a recording could not be read, and where.
package struct RecordingError: Error, CustomStringConvertible {
  /// The line of the recording, from 1; nil when the problem is not one line's.
  package let line: Int?
  /// What is wrong.
  package let message: String

  /// The problem `message` at `line`.
  package init(line: Int?, _ message: String) {
    self.line = line
    self.message = message
  }

  package var description: String { line.map { "line \($0): \(message)" } ?? message }
}

import ComposableRuntime
import EventLoop
@_spi(Hosting) import JSON
@_spi(Hosting) import Protocol

#if canImport(Glibc)
  import Glibc
#endif

/// `replay FILE`: re-reduces a recording without running effects and checks that every action
/// leads to the state its recorded patch does; or prints it as a scenario, or stops at a seq
/// and prints every store's snapshot there.
package struct Replay: Sendable {
  package let file: String
  /// Stop after this seq and print every store's snapshot there (time travel).
  package let until: Int?
  /// Print each replayed action line, as the run printed it.
  package let emit: Bool
  /// Print a scenario file that asserts what the recording holds.
  package let toScenario: Bool
  /// Print the outcome as one JSON line (`replayed` or `divergence`) on stdout.
  package let json: Bool
  package let harness: Harness

  package init(
    file: String, until: Int?, emit: Bool, toScenario: Bool, json: Bool = false,
    harness: Harness
  ) {
    self.file = file
    self.until = until
    self.emit = emit
    self.toScenario = toScenario
    self.json = json
    self.harness = harness
  }

  /// Replays, printing as the command does; returns the exit code.
  package func run() -> Int32 {
    do {
      try replay()
      return 0
    } catch {
      return error.code
    }
  }

  private func replay() throws(ReplayExit) {
    // A replay holds the line it is at; a scenario is written from the whole recording.
    let reader = try read { () throws(RecordingError) in
      try RecordingReader(
        path: file, maximumFileBytes: toScenario ? RecordingFile.maximumBytes : .max)
    }
    let header = reader.header
    if toScenario { try checkScenarioCanStart(from: header.initialStates) }
    let changes = changedStores(since: header)
    if !changes.isEmpty && !json {
      StandardStreams.error(
        "\(harness.name) replay: \(file) was recorded by stores that differ from this "
          + "binary's; steps that use what changed may diverge:\n"
          + changes.map { "  \($0)" }.joined(separator: "\n"))
    }
    let configuration: RunConfiguration
    do {
      configuration = try harness.configuration(
        arguments: header.arguments, dataDirectory: "/nonexistent")
    } catch {
      throw failure("\(file): the recorded arguments do not parse: \(error)", code: 65)
    }
    let loop: EventLoop
    do {
      loop = try EventLoop()
    } catch {
      throw failure("cannot start the loop: \(error)", code: 70)
    }
    StoreActor.install(executor: loop.executor)
    defer { try? loop.shutdown() }
    let outcome = StoreActor.assumeIsolated { () -> Result<Void, ReplayExit> in
      Result { () throws(ReplayExit) in
        let stores: ScriptedSession
        do throws(StateDecodingError) {
          stores = try ScriptedSession(
            loop: loop, stores: harness.stores, configuration: configuration,
            seed: header.seed, startTime: header.startTime, replaysTime: true,
            initialStates: header.initialStates)
        } catch {
          throw failure(error.message, code: 65)
        }
        if toScenario {
          let recording = try read { () throws(RecordingError) in try RecordingFile(reading: reader)
          }
          let states = stores.session.storeNames.map {
            ($0, stores.session.store(named: $0)!.snapshot())
          }
          try write(
            ScenarioWriter.scenario(
              from: recording, named: file, initialStates: Dictionary(uniqueKeysWithValues: states))
          )
        } else {
          try replay(reader, on: stores, changes: changes)
        }
      }
    }
    try outcome.get()
  }

  /// What `body` reads, or the exit for a recording that cannot be read.
  private func read<T>(_ body: () throws(RecordingError) -> T) throws(ReplayExit) -> T {
    do {
      return try body()
    } catch {
      throw failure("\(file): \(error)", code: 65)
    }
  }

  @StoreActor
  private func replay(
    _ reader: RecordingReader, on stores: ScriptedSession, changes: [String]
  ) throws(ReplayExit) {
    // Each store's state as the recording has it.
    var recordedStates: [InstanceAddress: JSONValue] = [:]
    var replayed = 0
    while let (entry, _) = try read({ () throws(RecordingError) in try reader.next() }) {
      if case .stopped(let address, _) = entry {
        Self.stop(address, in: stores, recordedStates: &recordedStates)
        continue
      }
      guard case .action(let recorded) = entry else { continue }
      replayed += 1
      guard stores.session.storeNames.contains(recorded.store),
        let store = stores.session.store(named: recorded.store, instance: recorded.address.instance)
      else {
        throw failure(
          "line \(recorded.line): no store named \"\(recorded.store)\" in this binary", code: 65)
      }
      let before = recordedStates.removeValue(forKey: recorded.address) ?? store.snapshot()
      let (printed, outcome) = Self.reduce(recorded, on: store, in: stores, from: before)
      if emit { try write(printed) }
      switch outcome {
      case .failure(let divergence):
        throw diverged(
          recorded, divergence.message, actual: divergence.actual,
          difference: divergence.difference, changes: changes)
      case .success(let after):
        recordedStates[recorded.address] = after
      }
      if recorded.seq == until {
        for name in stores.session.storeNames {
          for key in [nil] + stores.session.instanceKeys(of: name) {
            stores.output.snapshot(
              store: name, instance: key, seq: recorded.seq, id: nil,
              state: stores.session.store(named: name, instance: key)!.snapshot())
          }
        }
        var snapshots: [UInt8] = []
        stores.output.drain { snapshots.append(contentsOf: $0) }
        try write(snapshots)
        return
      }
    }
    if let until {
      throw failure("--until \(until): the recording has no action with that seq", code: 64)
    }
    if json {
      let outcome: JSONValue = [
        "type": "replayed", "file": .string(file), "actions": .int(replayed),
        "changedSinceRecording": .array(changes.map(JSONValue.string)),
      ]
      try write(outcome.serialized + [UInt8(ascii: "\n")])
    } else if !emit {
      try write(Array("\(file): \(replayed) actions replayed, every state matched\n".utf8))
    }
  }

  /// A scenario starts at most one store from a state of its own, its header's `initialState`,
  /// which `test` merges into the store's initial state member by member: a scenario written
  /// from a recording that starts otherwise would fail for no fault of the stores.
  private func checkScenarioCanStart(from initialStates: [String: JSONValue]) throws(ReplayExit) {
    guard initialStates.count <= 1 else {
      throw failure(
        "--to-scenario: the recording starts \(initialStates.count) stores ("
          + initialStates.keys.sorted().joined(separator: ", ")
          + ") from states of their own, and a scenario starts one at most", code: 64)
    }
    guard let (store, state) = initialStates.first else { return }
    guard let definition = harness.stores.definitions.first(where: { $0.name == store }) else {
      throw failure(
        "\(file): its \"initialStates\" names \"\(store)\", not a store of this binary", code: 65)
    }
    guard let initial = definition.initialStateJSON, merge(state, into: initial) == state else {
      throw failure(
        "--to-scenario: the recording starts \(store) from a state without members its "
          + "initial state has, which a scenario's initialState, merged into that state, would "
          + "keep", code: 64)
    }
  }

  /// Stops the instance a `stopped` line names, as the run did: its next action starts it
  /// again from the initial state.
  @StoreActor
  static func stop(
    _ address: InstanceAddress, in stores: ScriptedSession,
    recordedStates: inout [InstanceAddress: JSONValue]
  ) {
    if let key = address.instance { _ = stores.session.stop(store: address.store, instance: key) }
    recordedStates[address] = nil
    stores.output.drain { _ in }
  }

  /// How a replayed action differs from its recording.
  struct Divergence: Error {
    let message: String
    /// The patch the replay printed, if it printed one.
    let actual: JSONValue?
    /// How the replayed state differs from the one the recorded patch leads to.
    let difference: JSONDifference?
  }

  /// Re-reduces `recorded` on `store`, whose state the recording has as `before`: the lines the
  /// store printed, and the state the recorded patch leads to, unless the replay diverged. A
  /// patch is one way to write a change: when the replayed one is written differently (a later
  /// version writes shorter patches), the step still matches if it leads to the same state.
  @StoreActor
  static func reduce(
    _ recorded: RecordedAction, on store: any HostedStore, in stores: ScriptedSession,
    from before: JSONValue
  ) -> (printed: [UInt8], outcome: Result<JSONValue, Divergence>) {
    stores.time.replay(elapsed: recorded.elapsed)
    do {
      try store.replay(
        recorded.action, source: recorded.source == "effect" ? .effect : .host, id: recorded.id)
    } catch {
      return (
        [],
        .failure(
          Divergence(
            message: "the store refused the action: \(error.message)", actual: nil,
            difference: nil))
      )
    }
    var printed: [UInt8] = []
    stores.output.drain { printed.append(contentsOf: $0) }
    let actual = (try? JSONParser.parse(printed))?["patch"]
    guard let after = applying(recorded.patch, to: before) else {
      return (
        printed,
        .failure(
          Divergence(
            message: "the recorded patch does not apply", actual: actual, difference: nil))
      )
    }
    if actual != recorded.patch, case let state = store.snapshot(), state != after {
      return (
        printed,
        .failure(
          Divergence(
            message: "the patch differs from the recorded one and leads to another state",
            actual: actual, difference: JSONDifference(expected: after, actual: state)))
      )
    }
    return (printed, .success(after))
  }

  private static func applying(_ patch: JSONValue, to state: JSONValue) -> JSONValue? {
    guard let operations = try? patch.arrayValue?.map({ try JSONPatchOperation(json: $0) })
    else { return nil }
    return try? JSONPatch.apply(operations, to: state)
  }

  /// `difference`: how the replayed state differs from the one the recorded patch leads to.
  /// `changes`: what changed in the stores since the recording, by its fingerprints.
  private func diverged(
    _ recorded: RecordedAction, _ message: String, actual: JSONValue?,
    difference: JSONDifference?, changes: [String]
  ) -> ReplayExit {
    let differences = (difference?.changes ?? []).map(StepFailure.Difference.init)
    var divergence: JSONObject = [
      "type": "divergence", "file": .string(file), "seq": .int(recorded.seq),
      "line": .int(recorded.line), "store": .string(recorded.store),
      "action": recorded.action, "expected": recorded.patch, "actual": actual ?? .null,
      "message": .string(message), "differences": .array(differences.map(\.json)),
    ]
    if let instance = recorded.address.instance {
      divergence["instance"] = .string(instance.value)
    }
    if json {
      divergence["changedSinceRecording"] = .array(changes.map(JSONValue.string))
    }
    if emit || json {
      do throws(ReplayExit) {
        try write(JSONValue.object(divergence).serialized + [UInt8(ascii: "\n")])
      } catch {
        return error
      }
    }
    // The state's difference says what went wrong; the patches only when there is none.
    let shown =
      difference.map { ["the state (− recorded, + replayed):"] + $0.lines }
      ?? (actual.map {
        ["the patch (− recorded, + replayed):"]
          + JSONDifference(expected: recorded.patch, actual: $0).lines
      }
        ?? ["recorded patch: \(recorded.patch.jsonString)"])
    return failure(
      ([
        "\(file):\(recorded.line): replay diverged at seq \(recorded.seq): \(message)",
        "  action: \(recorded.address) \(recorded.action.jsonString)",
      ]
        + shown.map { "  " + $0 }).joined(separator: "\n"), code: 1)
  }

  /// What changed in the stores since the recording, by its fingerprints: one line per store
  /// and change. Empty for a recording made before fingerprints, which cannot tell.
  private func changedStores(since header: RecordingHeader) -> [String] {
    guard !header.fingerprints.isEmpty else { return [] }
    let current = harness.stores.fingerprints
    return header.stores.flatMap { store -> [String] in
      guard let recorded = header.fingerprints[store] else { return [] }
      guard let now = current[store] else { return ["\(store): not a store of this binary"] }
      return recorded.differences(from: now).map { "\(store): \($0)" }
    }
  }

  private func failure(_ message: String, code: Int32) -> ReplayExit {
    StandardStreams.error("\(harness.name) replay: \(message)")
    return ReplayExit(code: code)
  }

  private func write(_ bytes: [UInt8]) throws(ReplayExit) {
    do {
      try FileIO.writeOutput(bytes, to: nil)
    } catch {
      throw failure(error.reason, code: 74)
    }
  }
}

/// How a replay ended, as an exit code: 1 diverged, 64 bad arguments, 65 an unreadable
/// recording, 74 standard output could not be written.
struct ReplayExit: Error {
  let code: Int32
}

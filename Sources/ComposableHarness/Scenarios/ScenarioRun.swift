import ComposableRuntime
import EventLoop
import Glibc
@_spi(Hosting) import JSON
@_spi(Hosting) import Protocol

/// Why a scenario failed: the step, what went wrong, and the paths where expected and actual
/// differ.
struct StepFailure: Error {
  struct Difference {
    let path: String
    let expected: JSONValue?
    let actual: JSONValue?

    /// `{"path", "expected"?, "actual"?}`: a side is absent where it has nothing.
    var json: JSONValue {
      var entry: JSONObject = ["path": .string(path)]
      entry["expected"] = expected
      entry["actual"] = actual
      return .object(entry)
    }
  }

  let line: Int
  let step: String
  let message: String
  var differences: [Difference] = []
  /// The −/+ lines of a comparison, as TestStore prints a state that does not match.
  var report: [String] = []

  /// `{"line", "step", "message", "differences", "report"}`, the failure of a scenario line of
  /// `test --format json`.
  var json: JSONValue {
    [
      "line": .int(line), "step": .string(step), "message": .string(message),
      "differences": .array(differences.map(\.json)),
      "report": .array(report.map(JSONValue.string)),
    ]
  }

  /// Shows how `actual` differs from `expected`: the −/+ report and each path.
  mutating func show(expected: JSONValue, actual: JSONValue) {
    let difference = JSONDifference(expected: expected, actual: actual)
    report = difference.lines
    differences = difference.changes.map(Difference.init)
  }
}

extension StepFailure {
  /// The failure `json` describes: what a worker process of `test -j` reported.
  init?(json: JSONValue) {
    guard let line = json["line"]?.intValue, let step = json["step"]?.stringValue,
      let message = json["message"]?.stringValue, let report = json["report"]?.stringArray,
      let entries = json["differences"]?.arrayValue
    else { return nil }
    let differences = entries.compactMap(Difference.init(json:))
    guard differences.count == entries.count else { return nil }
    self.init(
      line: line, step: step, message: message, differences: differences, report: report)
  }
}

extension StepFailure.Difference {
  init(_ change: JSONDifference.Change) {
    self.init(path: change.path, expected: change.expected, actual: change.actual)
  }

  /// The difference `json` describes.
  init?(json: JSONValue) {
    guard let path = json["path"]?.stringValue else { return nil }
    self.init(path: path, expected: json["expected"], actual: json["actual"])
  }
}

struct ScenarioOutcome {
  let scenario: Scenario
  let failure: StepFailure?
}

/// Runs one scenario the way TCA's `TestStore` runs a test: every step's state change is
/// checked, every action an effect sends must be received, and nothing may still run at the
/// end (unless the scenario is not exhaustive).
///
/// After each step the loop settles, so what effects send without time passing has arrived
/// before the next step: deterministic, where a live test would race.
@StoreActor
final class ScenarioRun {
  /// One reduced action, with the state before and after it.
  private struct Reduced {
    let address: InstanceAddress
    let source: String
    let action: JSONValue
    let patch: JSONValue
    let before: JSONValue
    let after: JSONValue
  }

  private let scenario: Scenario
  private let harness: Harness
  private let loop: EventLoop
  /// Each instance's state, as the lines printed so far make it.
  private(set) var states: [InstanceAddress: JSONValue] = [:]
  /// The built-in invariants the output broke: a patch that does not apply, a non-empty patch
  /// for a reduction that left the state equal.
  private var brokenInvariants: [String] = []
  /// Where the steps come from when not from the scenario's list: a simulation, which picks
  /// each from the run so far; nil when there are no more.
  private let nextStep: ((ScenarioRun, ScriptedSession) -> Scenario.Step?)?
  /// Sees every line the stores print, after the run has read it.
  var observe: ((JSONValue) -> Void)?
  /// Actions reduced and not asserted yet, oldest first.
  private var received: [Reduced] = []
  private var refusals: [String] = []
  /// Each reduced action's type (its place in `actionTypes`) and the line of the step it was
  /// reduced in, by `seq`: kept for every action of the run, so kept small (a type's string
  /// for each took 126 bytes an action).
  private var reductions: [Int: (type: Int32, line: Int32)] = [:]
  /// The types of the actions reduced, each once, and their places there.
  private var actionTypes: [String] = []
  private var actionTypePlaces: [String: Int32] = [:]
  /// The `started` lines of the effects still running, by number.
  private var runningEffects: [Int: JSONValue] = [:]
  /// The last `seq` reduced when a `skipInFlightEffects` step ran: effects that actions up to
  /// it started may run at the end.
  private var skippedEffectsThrough = 0
  private var lastSeq = 0
  /// Whether the step running is checked exhaustively: its own setting, or the scenario's.
  private var exhaustive = true
  /// The run's data folder, a fresh copy of the scenario's `dataDir`: what `expect` reads files from.
  private var dataDirectory = ""

  /// The names of the files in the run's data folder (not its folders), in byte order.
  var dataFiles: [String] {
    ((try? FileIO.entries(of: dataDirectory)) ?? []).filter { !$0.isDirectory }.map(\.name)
      .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }
  private var currentLine: Int
  private var currentStep = "set-up"
  /// The run's own recording, when the scenario replays it at `quit`: a header, then every
  /// action line as `--record` writes it. With what the stores were built from, to replay it.
  private var recording: [UInt8] = []
  private var configuration: RunConfiguration?
  /// Tells the recording an instance stopped.
  private var stopped: ((InstanceAddress) -> Void)?
  private var initialStates: [String: JSONValue] = [:]

  init(
    _ scenario: Scenario, harness: Harness, loop: EventLoop,
    nextStep: ((ScenarioRun, ScriptedSession) -> Scenario.Step?)? = nil
  ) {
    self.scenario = scenario
    self.harness = harness
    self.loop = loop
    self.nextStep = nextStep
    currentLine = scenario.line
  }

  func run() async -> ScenarioOutcome {
    // A fresh folder each run, a copy of `dataDir` if the scenario names one: a scenario that
    // saves must not change its own fixture.
    let dataDir: TemporaryDirectory
    do {
      dataDir = try TemporaryDirectory()
    } catch {
      return ScenarioOutcome(
        scenario: scenario, failure: failure("cannot create a data folder: \(error.reason)"))
    }
    defer { dataDir.remove() }
    dataDirectory = dataDir.path
    if let source = scenario.dataDir {
      do {
        try dataDir.copyContents(of: source)
      } catch {
        return ScenarioOutcome(
          scenario: scenario, failure: failure("cannot copy \"dataDir\" \(source): \(error)"))
      }
    }
    var configuration: RunConfiguration
    do {
      configuration = try harness.configuration(
        arguments: scenario.arguments, dataDirectory: dataDir.path)
    } catch {
      return ScenarioOutcome(scenario: scenario, failure: failure("bad \"arguments\": \(error)"))
    }
    // Traced so that an effect still running at the end is named with what started it.
    configuration.traces.insert(.effects)
    var initialStates: [String: JSONValue] = [:]
    if let (store, members) = scenario.initialState {
      guard let definition = harness.stores.definitions.first(where: { $0.name == store }),
        let initial = definition.initialStateJSON
      else {
        return ScenarioOutcome(
          scenario: scenario, failure: failure("\"initialState\": no store named \"\(store)\""))
      }
      initialStates[store] = merge(members, into: initial)
    }
    let stores: ScriptedSession
    do throws(StateDecodingError) {
      stores = try ScriptedSession(
        loop: loop, stores: harness.stores, configuration: configuration, seed: scenario.seed,
        startTime: scenario.startTime, replaysTime: scenario.effects == .recorded,
        initialStates: initialStates)
    } catch {
      return ScenarioOutcome(
        scenario: scenario, failure: failure("\"initialState\": \(error.message)"))
    }
    self.configuration = configuration
    self.initialStates = initialStates
    if scenario.replaysRecording { record(stores) }
    let timeControl: VirtualTimeControl
    do {
      timeControl = try VirtualTimeControl(
        clock: stores.clock, loop: loop, maximumWakeUps: configuration.maxAdvanceWakeUps)
    } catch {
      return ScenarioOutcome(scenario: scenario, failure: failure("\(error)"))
    }
    for name in stores.session.storeNames {
      states[InstanceAddress(name)] = stores.session.store(named: name)!.snapshot()
    }
    var outcome: StepFailure?
    do throws(StepFailure) {
      var listed = scenario.steps.makeIterator()
      while true {
        let next =
          if let nextStep { nextStep(self, stores) } else { try nextListedStep(&listed) }
        guard let step = next else { break }
        currentLine = step.line
        currentStep = step.action.name
        exhaustive = step.exhaustive ?? scenario.exhaustive
        try await perform(step.action, in: stores, timeControl: timeControl)
        try checkProblems(stores)
      }
      currentStep = "end"
      try await finish(stores, timeControl: timeControl)
    } catch {
      outcome = error
    }
    _ = stores.session.cancelAllEffects(because: "end")
    await settle(timeControl)
    timeControl.close()
    return ScenarioOutcome(scenario: scenario, failure: outcome)
  }

  // MARK: Steps

  private func perform(
    _ action: Scenario.Action, in stores: ScriptedSession, timeControl: VirtualTimeControl
  ) async throws(StepFailure) {
    let runsEffects = scenario.effects == .run
    switch action {
    case .http(let response):
      stores.services.add(response)
    case .websocket(let configuration):
      do {
        try stores.services.peer.configure(configuration)
      } catch {
        throw failure(error.message)
      }
    case .answers(let name, let answers, let delay):
      do {
        try stores.services.answers(name)?.add(.object(answers), delay: delay)
      } catch {
        throw failure(error.description)
      }
    case .send(let address, let action, let expectations, let elapsed):
      if !received.isEmpty {
        guard !exhaustive else {
          throw unasserted("must be asserted before sending")
        }
        received.removeAll()
      }
      let host = try self.store(address, in: stores)
      if let elapsed { stores.time.replay(elapsed: elapsed) }
      do {
        if runsEffects {
          try host.send(action, id: nil)
        } else {
          try host.replay(action, source: .host, id: nil)
        }
      } catch {
        throw failure("\(address) refused the action: \(error.message)")
      }
      collect(stores)
      let reduced = received.removeFirst()
      if runsEffects { await settle(timeControl, collectingFrom: stores) }
      try check(reduced, against: expectations)
    case .receive(let address, let action, let givenMatch, let expectations, let elapsed):
      if !runsEffects {
        guard givenMatch != .partial else {
          throw failure(
            "\"match\":\"partial\" needs \"effects\":\"run\": a recorded receive reduces the "
              + "action it gives, whole")
        }
        let host = try self.store(address, in: stores)
        if let elapsed { stores.time.replay(elapsed: elapsed) }
        do {
          try host.replay(action, source: .effect, id: nil)
        } catch {
          throw failure("\(address) refused the action: \(error.message)")
        }
        collect(stores)
      }
      let match = givenMatch ?? .implied(by: action)
      try check(try receive(address, action: action, match: match), against: expectations)
    case .advance(let ms):
      guard runsEffects else { throw failure("advance needs \"effects\":\"run\"") }
      let outcome = await withCheckedContinuation { continuation in
        timeControl.advance(byMilliseconds: ms) { continuation.resume(returning: $0) }
      }
      collect(stores)
      if let wakeUps = outcome.stoppedAfterWakeUps {
        throw failure(
          "advance stopped after \(wakeUps) wake-ups, at \(outcome.now) ms: a timer that "
            + "fires this often needs shorter advances")
      }
    case .settle:
      guard runsEffects else { throw failure("settle needs \"effects\":\"run\"") }
      await settle(timeControl, collectingFrom: stores)
    case .peer(let step):
      try peer(step, stores.services.peer)
      await settle(timeControl, collectingFrom: stores)
    case .skipReceivedActions:
      received.removeAll()
    case .skipInFlightEffects:
      skippedEffectsThrough = lastSeq
    case .files(let files):
      for (name, content) in files {
        do throws(FileIO.Failure) {
          try FileIO.writeAtomically(
            ScenarioContent.bytes(content), to: "\(dataDirectory)/\(name)")
        } catch {
          throw failure("cannot write the data file \(name): \(error.reason)")
        }
      }
    case .check(let address, let invariant):
      _ = try store(address, in: stores)
      let state = states[address] ?? .null
      if !invariant.holds(in: state) {
        var failure = failure(invariant.brokenMessage(in: state))
        failure.differences = [
          .init(path: "\(invariant.pointer)", expected: nil, actual: invariant.subject(in: state))
        ]
        throw failure
      }
    case .slowWork(let ms):
      stores.services.addSlowWork(milliseconds: ms)
    case .failWrite(let code):
      stores.services.failingWrites.add(code)
    case .stop(let address):
      collect(stores)
      guard let key = address.instance,
        stores.session.stop(store: address.store, instance: key) != nil
      else {
        throw failure("\(address) is not in memory: a stop names an instance a step started")
      }
      states[address] = nil
      stopped?(address)
      await settle(timeControl, collectingFrom: stores)
    case .quit:
      // An effect is reported cancelled when it is asked to stop; it ends when its task
      // returns, which one that ignores cancellation never does.
      let running = runningEffects
      _ = stores.session.cancelAllEffects(because: "quit")
      await settle(timeControl, collectingFrom: stores)
      let left = stores.session.effectsInFlight
      if left > 0 {
        let effects = running.keys.sorted().compactMap { running[$0] }
        var failure = failure(
          "\(left) effect(s) did not end after quit cancelled them; running at quit: "
            + effects.map(describe(runningEffect:)).joined(separator: "; "))
        failure.differences = effects.enumerated().map { index, started in
          .init(path: "running[\(index)]", expected: nil, actual: started)
        }
        throw failure
      }
      if scenario.replaysRecording { try replayRecording() }
    case .expect(let requests, let files):
      var expected: JSONObject = [:]
      var actual: JSONObject = [:]
      if let requests {
        expected["requests"] = .array(requests)
        let made = stores.services.takeRequests()
        actual["requests"] = .array(
          made.indices.map { index in
            made[index].expectation(
              withBody: requests.indices.contains(index) && requests[index].objectValue != nil)
          })
      }
      if let files {
        expected["files"] = .object(files)
        var found: JSONObject = [:]
        for (name, _) in files {
          found[name] = try fileContent(name)
        }
        actual["files"] = .object(found)
      }
      if expected != actual {
        var failure = failure("the dependencies did not get what was expected")
        failure.show(expected: .object(expected), actual: .object(actual))
        throw failure
      }
    }
  }

  /// A data file's content as JSON, or as text when it is not JSON; null when it is absent.
  private func fileContent(_ name: String) throws(StepFailure) -> JSONValue {
    let bytes: [UInt8]
    do throws(FileIO.Failure) {
      bytes = try FileIO.readAll("\(dataDirectory)/\(name)", limit: SavedFile.maximumBytes)
    } catch  where error.code == ENOENT {
      return .null
    } catch {
      throw failure("cannot read the data file \(name): \(error.reason)")
    }
    return ScenarioContent.value(bytes)
  }

  private func peer(_ step: Scenario.PeerStep, _ peer: ScriptedPeer) throws(StepFailure) {
    do {
      switch step {
      case .message(let message):
        try peer.deliver(.success(message))
      case .receiveFailure(let message):
        try peer.deliver(.failure(message))
      case .close(let code, let reason):
        try peer.close(code: code, reason: reason)
      case .accept:
        try peer.answer(accept: true)
      case .refuse(let code, let reason):
        try peer.answer(accept: false, code: code, reason: reason)
      case .expect(let sent, let pings):
        let got = peer.takeReceived()
        var expected: JSONObject = [:]
        var actual: JSONObject = [:]
        if let sent { (expected["sent"], actual["sent"]) = (json(sent), json(got.sent)) }
        if let pings { (expected["pings"], actual["pings"]) = (.int(pings), .int(got.pings)) }
        if expected != actual {
          var failure = failure("the peer did not get what was expected")
          failure.show(expected: .object(expected), actual: .object(actual))
          throw failure
        }
      }
    } catch let error as ScenarioError {
      throw failure(error.message)
    } catch let error as StepFailure {
      throw error
    } catch {
      throw failure("\(error)")
    }
  }

  private func receive(_ address: InstanceAddress, action: JSONValue, match: Scenario.ActionMatch)
    throws(StepFailure) -> Reduced
  {
    if exhaustive {
      guard let next = received.first else {
        throw failure(
          "expected to receive \(Scenario.Action.type(of: action)), but no action was received "
            + "(one waiting for time needs an advance)")
      }
      guard next.address == address, match.accepts(next.action, as: action) else {
        var failure = failure("received a different action")
        failure.show(
          expected: wire(address, match.expectation(action, for: next.action)),
          actual: wire(next.address, next.action))
        throw failure
      }
      return received.removeFirst()
    }
    guard
      let index = received.firstIndex(where: {
        $0.address == address && match.accepts($0.action, as: action)
      })
    else {
      throw failure(
        "expected to receive \(Scenario.Action.type(of: action)), but it was not among the "
          + "\(received.count) received action(s)")
    }
    let match = received[index]
    received.removeFirst(index + 1)
    return match
  }

  private func finish(_ stores: ScriptedSession, timeControl: VirtualTimeControl)
    async throws(StepFailure)
  {
    if scenario.effects == .run { await settle(timeControl, collectingFrom: stores) }
    try checkProblems(stores)
    guard scenario.exhaustive else { return }
    if !received.isEmpty {
      throw unasserted("were not asserted by the end")
    }
    let effects = runningEffects.keys.sorted().compactMap { runningEffects[$0] }.filter {
      ($0["cause"]?.intValue ?? 0) > skippedEffectsThrough
    }
    if !effects.isEmpty {
      var failure = failure(
        "\(effects.count) effect(s) still running at the end: "
          + effects.map(describe(runningEffect:)).joined(separator: "; ")
          + ". End them in the scenario (a cancel, a disconnect), skip them "
          + "({\"skipInFlightEffects\":true}), or make the scenario non-exhaustive")
      failure.differences = effects.enumerated().map { index, started in
        .init(path: "running[\(index)]", expected: nil, actual: started)
      }
      throw failure
    }
  }

  /// `effect 2 (run, cancellable by nthPrime), started by counter.nthPrimeButtonTapped at
  /// FILE:LINE`, from the effect's `started` line.
  private func describe(runningEffect started: JSONValue) -> String {
    let cause = started["cause"]?.intValue.flatMap { reductions[$0] }
    return EffectEvent.runningDescription(
      effect: started["effect"]?.intValue.map(String.init) ?? "?",
      operation: started["operator"]?.stringValue ?? "effect",
      cancelID: started["cancelID"]?.stringValue,
      startedBy: cause.map { "\(actionTypes[Int($0.type)]) at \(scenario.file):\($0.line)" })
  }

  private func place(ofType type: String) -> Int32 {
    if let place = actionTypePlaces[type] { return place }
    actionTypes.append(type)
    actionTypePlaces[type] = Int32(actionTypes.count - 1)
    return Int32(actionTypes.count - 1)
  }

  // MARK: Checking

  private func check(_ reduced: Reduced, against expectations: [Scenario.Expectation])
    throws(StepFailure)
  {
    if expectations.isEmpty && exhaustive && reduced.before != reduced.after {
      var failure = failure("the state changed, but the step expects no change")
      failure.show(expected: reduced.before, actual: reduced.after)
      throw failure
    }
    // An edit, then members set over it: the state the step expects, if it says.
    var expected: JSONValue?
    for case .edit(let edit) in expectations {
      guard exhaustive else {
        throw failure("\"edit\" needs an exhaustive step (use \"state\" in this one)")
      }
      do throws(ScenarioError) {
        expected = try edit.applied(to: reduced.before)
      } catch {
        throw failure("the edit does not apply to the state before the step: \(error.message)")
      }
    }
    for case .state(let partial) in expectations {
      expected = merge(partial, into: expected ?? (exhaustive ? reduced.before : reduced.after))
    }
    if let expected, expected != reduced.after {
      var failure = failure("the state differs from the expectation")
      failure.show(expected: expected, actual: reduced.after)
      throw failure
    }
    for case .patch(let patch) in expectations where patch != reduced.patch {
      var failure = failure("the patch differs")
      failure.show(expected: patch, actual: reduced.patch)
      throw failure
    }
  }

  private func checkProblems(_ stores: ScriptedSession) throws(StepFailure) {
    let problems = brokenInvariants + stores.services.problems + refusals
    if !problems.isEmpty { throw failure(problems.joined(separator: "; ")) }
    for (address, state) in states.sorted(by: { "\($0.key)" < "\($1.key)" }) {
      let broken =
        harness.stores.definitions.first { $0.name == address.store }?.brokenInvariants(
          of: state) ?? []
      if !broken.isEmpty {
        throw failure("\(address): the store's invariant broke: \(broken.joined(separator: "; "))")
      }
    }
    // The patches printed must add up to the state the store holds.
    for (address, state) in states.sorted(by: { "\($0.key)" < "\($1.key)" }) {
      guard
        let held = stores.session.store(named: address.store, instance: address.instance)?
          .snapshot(), held != state
      else { continue }
      var failure = failure("\(address): the patches printed do not give the state it holds")
      failure.show(expected: held, actual: state)
      throw failure
    }
  }

  // MARK: The run's own recording

  private func record(_ stores: ScriptedSession) {
    let header = RecordingHeader(
      binary: harness.name, stores: stores.session.storeNames, arguments: scenario.arguments,
      seed: scenario.seed, clock: .virtual, startTime: scenario.startTime,
      initialStates: initialStates)
    recording = header.json.serialized + [UInt8(ascii: "\n")]
    let time = stores.time
    stores.output.didWriteActionLine = { [unowned self] line in
      recording.append(contentsOf: line.dropLast(2))
      Recorder.appendTime(time.elapsed, to: &recording)
    }
    // The `stop` step writes no line (a host's command would): its line, as `--record` has it.
    stopped = { [unowned self] address in
      var line = address.members
      line["type"] = "stopped"
      recording.append(contentsOf: JSONValue.object(line).serialized.dropLast())
      Recorder.appendTime(time.elapsed, to: &recording)
    }
  }

  /// Replays the run's recording as `replay` would, on stores built as this run's were: an
  /// action that leads elsewhere than it did (a reducer that reads what its dependencies do
  /// not give, a patch that does not say what changed) is a divergence.
  private func replayRecording() throws(StepFailure) {
    guard let configuration else { return }
    let replayed: ScriptedSession
    do throws(StateDecodingError) {
      replayed = try ScriptedSession(
        loop: loop, stores: harness.stores, configuration: configuration, seed: scenario.seed,
        startTime: scenario.startTime, replaysTime: true, initialStates: initialStates)
    } catch {
      throw failure("the run's recording cannot be replayed: \(error.message)")
    }
    let divergence: StepFailure?
    do throws(RecordingError) {
      divergence = try firstDivergence(
        RecordingReader(bytes: recording, name: "the run's recording"), on: replayed)
    } catch {
      throw failure("the run's recording does not read back: \(error)")
    }
    if let divergence { throw divergence }
  }

  private func firstDivergence(_ reader: RecordingReader, on replayed: ScriptedSession)
    throws(RecordingError) -> StepFailure?
  {
    var recordedStates: [InstanceAddress: JSONValue] = [:]
    while let (entry, _) = try reader.next() {
      if case .stopped(let address, _) = entry {
        Replay.stop(address, in: replayed, recordedStates: &recordedStates)
        continue
      }
      guard case .action(let recorded) = entry else { continue }
      guard
        let store = replayed.session.store(
          named: recorded.store, instance: recorded.address.instance)
      else { return failure("the run's recording names a store it has not: \(recorded.store)") }
      let before = recordedStates[recorded.address] ?? store.snapshot()
      switch Replay.reduce(recorded, on: store, in: replayed, from: before).outcome {
      case .success(let after):
        recordedStates[recorded.address] = after
      case .failure(let divergence):
        var failure = failure(
          "the run's recording diverged on replay at seq \(recorded.seq), \(recorded.address) "
            + "\(Scenario.Action.type(of: recorded.action)): \(divergence.message)")
        if let difference = divergence.difference {
          failure.report = difference.lines
          failure.differences = difference.changes.map(StepFailure.Difference.init)
        }
        return failure
      }
    }
    return nil
  }

  // MARK: Output

  /// Reads what the stores printed, keeping each store's state current. The lines are parsed
  /// back from the bytes a host would get, so a scenario checks the wire form itself.
  private func collect(_ stores: ScriptedSession) {
    var lines: [JSONValue] = []
    stores.output.drain { bytes in
      for line in bytes.split(separator: UInt8(ascii: "\n")) {
        if let json = try? JSONParser.parse(UnsafeRawBufferPointer(rebasing: line)) {
          lines.append(json)
        }
      }
    }
    for line in lines {
      switch line["type"]?.stringValue {
      case "action":
        guard let store = line["store"]?.stringValue,
          case let address = InstanceAddress(store, try? InstanceAddress.instance(in: line)),
          let before = states[address], let patch = line["patch"], let action = line["action"]
        else { continue }
        let type = Scenario.Action.type(of: action)
        let after: JSONValue
        do {
          after = try JSONPatch.apply(operations(patch), to: before)
        } catch {
          brokenInvariants.append(
            "\(address) \(type): its patch does not apply to the state before it: \(error)")
          continue
        }
        if after == before, patch.arrayValue?.isEmpty == false {
          brokenInvariants.append(
            "\(address) \(type): the state did not change, but its patch is not empty: "
              + patch.jsonString)
        }
        states[address] = after
        if let seq = line["seq"]?.intValue {
          reductions[seq] = (place(ofType: type), Int32(currentLine))
          lastSeq = max(lastSeq, seq)
        }
        received.append(
          Reduced(
            address: address, source: line["source"]?.stringValue ?? "", action: action,
            patch: patch, before: before, after: after))
      case "effect":
        guard let effect = line["effect"]?.intValue else { continue }
        switch line["event"]?.stringValue {
        case "started": runningEffects[effect] = line
        case "sleeping": break
        default: runningEffects[effect] = nil
        }
      case "error":
        if line["code"] == "effect_failed", let action = line["action"],
          harness.stores.definitions.first(where: { $0.name == line["store"]?.stringValue })?
            .effectsThatMayFail.contains(Scenario.Action.type(of: action)) == true
        {
          continue
        }
        refusals.append(line["message"]?.stringValue ?? "an error line")
      default:
        break
      }
    }
    if let observe { lines.forEach(observe) }
  }

  private func settle(_ timeControl: VirtualTimeControl, collectingFrom stores: ScriptedSession)
    async
  {
    await settle(timeControl)
    collect(stores)
  }

  private func settle(_ timeControl: VirtualTimeControl) async {
    await withCheckedContinuation { continuation in
      timeControl.settle { continuation.resume() }
    }
  }

  // MARK: Helpers

  /// The instance a step names, activated if need be, with its state known from here on.
  private func store(_ address: InstanceAddress, in stores: ScriptedSession) throws(StepFailure)
    -> any HostedStore
  {
    guard stores.session.storeNames.contains(address.store),
      let store = stores.session.store(named: address.store, instance: address.instance)
    else {
      throw failure(
        "no store named \"\(address.store)\"; the stores are \(stores.session.storeNames.joined(separator: ", "))"
      )
    }
    if states[address] == nil { states[address] = store.snapshot() }
    return store
  }

  private func nextListedStep(_ steps: inout ScenarioSteps.Iterator) throws(StepFailure)
    -> Scenario.Step?
  {
    do {
      return try steps.next()
    } catch {
      currentLine = error.line ?? currentLine
      throw failure(error.message)
    }
  }

  private func failure(_ message: String) -> StepFailure {
    StepFailure(line: currentLine, step: currentStep, message: message)
  }

  /// The received actions not asserted, each shown as a difference: expected nothing there.
  private func unasserted(_ what: String) -> StepFailure {
    var failure = failure(
      "\(received.count) received action(s) \(what): "
        + received.map { "\($0.address) \(Scenario.Action.type(of: $0.action))" }
        .joined(separator: ", "))
    failure.differences = received.enumerated().map { index, reduced in
      .init(
        path: "received[\(index)]", expected: nil, actual: wire(reduced.address, reduced.action))
    }
    return failure
  }

  private func wire(_ address: InstanceAddress, _ action: JSONValue) -> JSONValue {
    var wire = address.members
    wire["action"] = action
    return .object(wire)
  }

  private func json(_ messages: [SocketMessage]) -> JSONValue {
    (try? JSONValueEncoder().encode(messages)) ?? .null
  }
}

/// `partial` laid over `base`: objects are merged member by member, anything else replaces.
func merge(_ partial: JSONValue, into base: JSONValue) -> JSONValue {
  guard case .object(let overlay) = partial, case .object(var merged) = base else {
    return partial
  }
  for (key, value) in overlay {
    merged[key] = merged[key].map { merge(value, into: $0) } ?? value
  }
  return .object(merged)
}

private func operations(_ patch: JSONValue) throws -> [JSONPatchOperation] {
  try (patch.arrayValue ?? []).map { try JSONPatchOperation(json: $0) }
}

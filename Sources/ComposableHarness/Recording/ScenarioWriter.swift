import ComposableRuntime
@_spi(Hosting) import JSON
@_spi(Hosting) import Protocol

/// Turns a recording into a scenario that asserts what happened: host actions become `send`
/// steps and effect actions `receive` steps, in order.
///
/// A recording that holds its dependencies' answers (``RecordingHeader/recordsAnswers``)
/// becomes a scenario whose effects run again, like a VCR cassette played back: the data
/// folder's files, HTTP answers and the answers of dependencies a store scripts by name become
/// set-up lines, each before the step whose action's effect asked and with the delay the live
/// answer took; WebSocket events and messages become `peer` steps where they happened, and the
/// messages the client sent are checked with `peer` `expect` steps. Time moves with `advance`
/// steps to each recorded time, and each step states how its action changed the state
/// (`state`, the top-level members it changed). An older recording becomes a scenario with
/// `"effects":"recorded"`, which re-reduces the recorded effect actions and checks patches.
enum ScenarioWriter {
  /// `initialStates`: each store's state before the first action, as the recorded arguments
  /// build it.
  static func scenario(
    from recording: RecordingFile, named file: String, initialStates: [String: JSONValue]
  ) -> [UInt8] {
    let lines =
      recording.header.recordsAnswers
      ? Cassette(recording, initialStates: initialStates).lines(named: file)
      : recordedEffects(recording, named: file)
    return lines.flatMap { $0.serialized + [UInt8(ascii: "\n")] }
  }

  /// A recording that starts one store from a state of its own (an export's) starts the
  /// scenario there too: `replay --to-scenario` refuses one that starts more.
  static func header(_ header: RecordingHeader, named file: String) -> JSONObject {
    var object: JSONObject = [
      "scenario": .string("replay of \(file)"), "seed": .string(String(header.seed)),
      "startTime": .int(header.startTime),
      "arguments": .array(
        removingOptions(["--clock", "--data-dir"], from: header.arguments).map(JSONValue.string)),
    ]
    if header.initialStates.count == 1, let (store, state) = header.initialStates.first {
      object["store"] = .string(store)
      object["initialState"] = state
    }
    return object
  }

  private static func recordedEffects(_ recording: RecordingFile, named file: String)
    -> [JSONValue]
  {
    var header = header(recording.header, named: file)
    header["effects"] = "recorded"
    return [.object(header)]
      + recording.actions.map { action in
        var step: JSONObject = [action.source == "effect" ? "receive" : "send": action.action]
        for (key, value) in action.address.members { step[key] = value }
        step["patch"] = action.patch
        step["t"] = .int(action.elapsed)
        return .object(step)
      }
  }
}

/// The steps of a scenario that plays a recording's answers back to the real effects.
private struct Cassette {
  let recording: RecordingFile
  /// Each store's state before the first action: where its instances start.
  let initialStates: [String: JSONValue]
  /// Each instance's state after the steps so far.
  var states: [InstanceAddress: JSONValue] = [:]
  /// The scenario's lines so far.
  private var steps: [JSONValue] = []
  /// Set-up lines to put before the step at an index of `steps`.
  private var setUps: [Int: [JSONValue]] = [:]
  /// For each action, by seq: where a set-up line must go to answer what its effects ask (the
  /// step that reduced it, or the `advance` or `peer` step that led to it), and its time.
  private var triggers: [Int: (step: Int, elapsed: Int)] = [:]
  /// The step that the actions received next were reduced in.
  private var deliveringStep = 0
  private var now = 0
  private var isOpen = false
  private var sent: [JSONValue] = []
  /// For each answer to a request, by line: how many answers to requests came before it in
  /// the same millisecond, and after it.
  private let ties: [Int: (before: Int, after: Int)]

  init(_ recording: RecordingFile, initialStates: [String: JSONValue]) {
    self.recording = recording
    self.initialStates = initialStates
    let requests = recording.answers.filter { $0.dependency != "websocket" }
    var ties: [Int: (before: Int, after: Int)] = [:]
    for group in Dictionary(grouping: requests, by: \.elapsed).values {
      for (index, answer) in group.sorted(by: { $0.line < $1.line }).enumerated() {
        ties[answer.line] = (index, group.count - 1 - index)
      }
    }
    self.ties = ties
  }

  consuming func lines(named file: String) -> [JSONValue] {
    var nextAnswer = 0
    var nextStop = 0
    for (index, action) in recording.actions.enumerated() {
      while nextAnswer < recording.answers.count,
        recording.answerPositions[nextAnswer] <= index
      {
        play(recording.answers[nextAnswer])
        nextAnswer += 1
      }
      while nextStop < recording.stops.count, recording.stops[nextStop].position <= index {
        stop(recording.stops[nextStop])
        nextStop += 1
      }
      reduce(action)
    }
    for stop in recording.stops[nextStop...] { self.stop(stop) }
    for answer in recording.answers[nextAnswer...] { play(answer) }
    flushSent()
    steps.append(["skipInFlightEffects": true])
    return preamble(named: file) + interleaved()
  }

  private func preamble(named file: String) -> [JSONValue] {
    var lines: [JSONValue] = [.object(ScenarioWriter.header(recording.header, named: file))]
    let files = recording.header.files
    if !files.isEmpty {
      lines.append(
        ["files": .object(JSONObject(files.keys.sorted().map { ($0, .string(files[$0]!)) }))])
    }
    let webSocket = recording.answers.filter { $0.dependency == "websocket" }
    if !webSocket.isEmpty {
      let chosen = webSocket.lazy.compactMap { $0.fields["didOpen"]?["protocol"] }.first
      lines.append(["websocket": ["accept": "later", "protocol": chosen ?? .null]])
    }
    return lines
  }

  private func interleaved() -> [JSONValue] {
    var lines: [JSONValue] = []
    for (index, step) in steps.enumerated() {
      lines += setUps[index] ?? []
      lines.append(step)
    }
    return lines + (setUps[steps.count] ?? [])
  }

  /// In steps no longer than `test` takes (``Session/maxAdvance``): a virtual clock advanced
  /// several times may have moved further than one advance may.
  private mutating func advance(to elapsed: Int) {
    guard elapsed > now else { return }
    flushSent()
    while now < elapsed {
      let step = min(elapsed - now, Session.maxAdvance)
      deliveringStep = steps.count
      steps.append(["advance": .int(step)])
      now += step
    }
  }

  private mutating func reduce(_ action: RecordedAction) {
    advance(to: action.elapsed)
    let isHost = action.source != "effect"
    if isHost {
      flushSent()
      deliveringStep = steps.count
    }
    triggers[action.seq] = (deliveringStep, action.elapsed)
    var step: JSONObject = [isHost ? "send" : "receive": action.action]
    for (key, value) in action.address.members { step[key] = value }
    let before = states[action.address] ?? initialStates[action.store] ?? .object([:])
    if let operations = try? action.patch.arrayValue?.map({ try JSONPatchOperation(json: $0) }),
      let after = try? JSONPatch.apply(operations, to: before),
      case .object(let old) = before, case .object(let new) = after,
      old.keys.allSatisfy({ new[$0] != nil })
    {
      let changed = new.filter { old[$0.key] != $0.value }
      if !changed.isEmpty {
        step["state"] = .object(JSONObject(changed.map { ($0.key, $0.value) }))
      }
      states[action.address] = after
    } else {
      step["patch"] = action.patch
    }
    steps.append(.object(step))
  }

  /// A host's stop, as a `stop` step: the instance's next action starts from its initial state.
  private mutating func stop(_ stop: RecordingFile.Stop) {
    advance(to: stop.elapsed)
    flushSent()
    var step: JSONObject = ["stop": true]
    for (key, value) in stop.address.members { step[key] = value }
    steps.append(.object(step))
    states[stop.address] = nil
  }

  private mutating func play(_ answer: RecordedAnswer) {
    switch answer.dependency {
    case "websocket": peer(answer)
    case "http": setUp(answer, canned(answer))
    default: setUp(answer, named(answer))
    }
  }

  /// A set-up line answering a request, before the step that led to the asking action, with
  /// the delay the live answer took. Answers that came in one millisecond come a microsecond
  /// apart, in the order they came (the scenario's clock would otherwise give them in the
  /// order they were asked). A cancelled request's answer comes a millisecond after the
  /// recorded cancellation, which the same effects make again.
  private mutating func setUp(_ answer: RecordedAnswer, _ line: (JSONValue?) -> JSONValue) {
    let trigger = answer.after.flatMap { triggers[$0] } ?? (step: 0, elapsed: 0)
    let cancelled = answer.fields["cancelled"] == true
    // Times are within ±ActionTime.maximumMilliseconds, so their difference is within twice
    // that; a scenario's delay, in microseconds, holds at most once that.
    let milliseconds = min(
      max(0, answer.elapsed - trigger.elapsed) + (cancelled ? 1 : 0),
      ActionTime.maximumMilliseconds)
    let microseconds = max(0, milliseconds * 1000 - (ties[answer.line]?.after ?? 0))
    let delay: JSONValue? =
      switch microseconds {
      case 0: nil
      case let whole where whole % 1000 == 0: .int(whole / 1000)
      default: .number(Double(microseconds) / 1000)
      }
    setUps[trigger.step, default: []].append(line(delay))
  }

  private func canned(_ answer: RecordedAnswer) -> (JSONValue?) -> JSONValue {
    let fields = answer.fields
    var http: JSONObject = [:]
    http["method"] = fields["method"]
    http["path"] = .string(RequestTarget(fields["url"]?.stringValue ?? "/").pathAndQuery)
    if let sent = fields["requestBody"]?.stringValue {
      http["requestBody"] = ScenarioContent.value(Array(sent.utf8))
    }
    http["times"] = 1
    if fields["cancelled"] == true {
      http["failure"] = "connectionFailed"
      http["message"] = "the recorded request was cancelled before it was answered"
    } else {
      for key in ["status", "body", "failure", "message"] { http[key] = fields[key] }
    }
    return { delay in
      var line = http
      line["delay"] = delay
      return ["http": .object(line)]
    }
  }

  private func named(_ answer: RecordedAnswer) -> (JSONValue?) -> JSONValue {
    let key = answer.fields["key"]?.stringValue ?? ""
    let value = answer.fields["cancelled"] == true ? .null : answer.fields["answer"] ?? .null
    return { delay in
      var line: JSONObject = [answer.dependency: [key: value]]
      line["delay"] = delay
      return .object(line)
    }
  }

  /// A WebSocket event where it happened: the peer does it at that time.
  private mutating func peer(_ answer: RecordedAnswer) {
    let fields = answer.fields
    if let message = fields["sent"] {
      sent.append(message)
      return
    }
    advance(to: answer.elapsed)
    flushSent()
    let step: JSONValue
    if fields["didOpen"] != nil {
      isOpen = true
      step = ["accept": true]
    } else if let close = fields["didClose"] {
      step = isOpen ? ["close": close] : ["refuse": close]
      isOpen = false
    } else if let message = fields["message"] {
      step = ["message": message]
    } else {
      step = ["receiveFailure": fields["receiveFailure"] ?? ""]
    }
    deliveringStep = steps.count
    steps.append(["peer": step])
  }

  /// What the client sent since the last check, checked before the next step that moves on.
  private mutating func flushSent() {
    guard !sent.isEmpty else { return }
    steps.append(["peer": ["expect": ["sent": .array(sent)]]])
    sent = []
  }
}

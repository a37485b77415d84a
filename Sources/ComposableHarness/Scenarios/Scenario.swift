import ComposableRuntime
import EventLoop
import JSON
@_spi(Hosting) import Protocol

#if canImport(Glibc)
  import Glibc
#endif

/// One scenario of a scenario file: its set-up and its steps, as TCA's `TestStore` would run
/// them. The format is documented in docs/SCENARIOS.md.
struct Scenario {
  /// How the actions that effects send come about.
  enum Effects: String {
    /// Effects run against the scripted dependencies; `receive` asserts what they sent.
    case run
    /// Effects do not run; `receive` reduces the action given, as a replay does. What
    /// `replay --to-scenario` writes, since a live recording's network cannot be scripted.
    case recorded
  }

  enum Expectation {
    /// The state the action leaves: the state before with these members set (objects are
    /// merged, anything else replaced).
    case state(JSONValue)
    /// The state the action leaves: the state before with these operations applied.
    case edit(StateEdit)
    /// The exact RFC 6902 patch.
    case patch(JSONValue)
  }

  enum PeerStep {
    case message(SocketMessage)
    case close(code: Int, reason: String)
    /// Opens the connection left connecting by `"accept":"later"`.
    case accept
    /// Refuses it with this close frame.
    case refuse(code: Int, reason: String)
    case receiveFailure(String)
    case expect(sent: [SocketMessage]?, pings: Int?)
  }

  enum Action {
    case http(CannedResponse)
    case websocket(JSONValue)
    /// Answers for a dependency a store scripts by name (``StoreDefinition/scriptedDependencies``).
    case answers(name: String, JSONObject, delay: Duration)
    case send(
      InstanceAddress, action: JSONValue, expectations: [Expectation], elapsed: Int?)
    case receive(
      InstanceAddress, action: JSONValue, match: ActionMatch?, expectations: [Expectation],
      elapsed: Int?)
    case advance(Int)
    case settle
    case peer(PeerStep)
    /// TestStore's `skipReceivedActions()`: the actions received and not asserted are dropped.
    case skipReceivedActions
    /// TestStore's `skipInFlightEffects()`: the effects running now (and those they start) no
    /// longer fail the scenario by running at its end.
    case skipInFlightEffects
    /// What the effects did to the scripted services: the HTTP requests since the last check
    /// (`"GET /todos/3"`), and files of the data folder (their content as JSON, or as text when
    /// it is not JSON; null for a file that must not exist).
    case expect(requests: [JSONValue]?, files: JSONObject?)
    /// Writes files into the data folder: a string as it is, other JSON serialized.
    case files(JSONObject)
    /// The next piece of work the stores run on the thread pool (a computation, a file read or
    /// write) waits this many virtual milliseconds before it starts: slow work.
    case slowWork(Int)
    /// The next save of a file fails with this `errno`, as a full disk (`ENOSPC`) or a failing
    /// one (`EIO`) fails it.
    case failWrite(Int32)
    /// Fails when the instance's state breaks the invariant.
    case check(InstanceAddress, Invariant)
    /// What a host's `stop` does: the named instance leaves memory, its effects cancelled; a
    /// later step naming it starts it again from the initial state.
    case stop(InstanceAddress)
    /// What a host's `quit` does: cancels every effect, lets them end, and fails when one
    /// still runs.
    case quit

    var name: String {
      switch self {
      case .http: "http"
      case .websocket: "websocket"
      case .answers(let name, _, _): name
      case .send(_, let action, _, _): "send \(Self.type(of: action))"
      case .receive(_, let action, _, _, _): "receive \(Self.type(of: action))"
      case .advance(let ms): "advance \(ms) ms"
      case .settle: "settle"
      case .peer: "peer"
      case .skipReceivedActions: "skipReceivedActions"
      case .skipInFlightEffects: "skipInFlightEffects"
      case .expect: "expect"
      case .files: "files"
      case .slowWork(let ms): "slowWork \(ms) ms"
      case .failWrite(let code):
        "failWrite \(Self.writeFaults.first { $0.value == code }?.key ?? "")"
      case .check(_, let invariant): "check \(invariant.text)"
      case .stop(let address): "stop \(address)"
      case .quit: "quit"
      }
    }

    /// What a `failWrite` step names, and the `errno` of each.
    static let writeFaults: KeyValuePairs<String, Int32> = ["noSpace": ENOSPC, "ioError": EIO]

    static func type(of action: JSONValue) -> String {
      action.stringValue ?? action["type"]?.stringValue ?? action.briefDescription
    }
  }

  /// How a `receive` step's action is compared with the action received.
  enum ActionMatch: String {
    /// The whole wire form, payload included, as TestStore's `receive(_:)` with a value.
    case exact
    /// The type and the payload members given, as `state` expectations merge: objects member
    /// by member, anything else whole. A bare type matches any payload, as TestStore's
    /// `receive(\.case)`.
    case partial

    /// The match of a step that names none: an action given by its type alone names the case,
    /// whatever its payload, as TestStore's `receive(\.case)`; one with a payload names the
    /// whole action, as `receive(.case(value))`.
    static func implied(by action: JSONValue) -> ActionMatch {
      action.objectValue?.count == 1 ? .partial : .exact
    }

    func accepts(_ received: JSONValue, as expected: JSONValue) -> Bool {
      switch self {
      case .exact: received == expected
      case .partial: merge(expected, into: received) == received
      }
    }

    /// What the step expects of `received`: only the members it names differ from it.
    func expectation(_ expected: JSONValue, for received: JSONValue) -> JSONValue {
      switch self {
      case .exact: expected
      case .partial: merge(expected, into: received)
      }
    }
  }

  struct Step {
    let line: Int
    let action: Action
    /// A `send` or `receive` step's own `exhaustive`, when it has one: it overrides the
    /// scenario's for that step, as setting TestStore's `exhaustivity` around one step would.
    var exhaustive: Bool? = nil
  }

  var file: String
  var line: Int
  var name: String
  var exhaustive = true
  var effects = Effects.run
  var seed: UInt64 = 0
  /// Milliseconds since the Unix epoch that reducers see at the start.
  var startTime = 0
  /// Options of the run command (`--max-received 5`, …); `--clock`, `--seed` and `--data-dir`
  /// are the scenario's own.
  var arguments: [String] = []
  /// A data folder to start from; a fresh empty one otherwise.
  var dataDir: String?
  /// Members set over the header's store's initial state before the first step, as TestStore's
  /// `initialState:`.
  var initialState: (store: String, members: JSONValue)?
  /// At `quit`, the run's own recording is replayed and must not diverge. Off unless the
  /// header asks: the recording is kept in memory, as large as the run's output.
  var replaysRecording = false
  var steps = ScenarioSteps()
}

/// A scenario's steps, held as the lines of the file they are on and parsed as they run: a
/// step parsed is several times its line (a million steps of a 52 MiB file took 600 MiB), and
/// only one runs at a time. The lines were checked when the file was read.
struct ScenarioSteps {
  /// The whole file, shared by its scenarios.
  var bytes: [UInt8] = []
  /// The steps' lines in `bytes`.
  var range = 0..<0
  /// The number of the line at `range`'s start.
  var firstLine = 1
  /// The header's store, for the steps that name none.
  var defaultStore: String?
  var scripted: Set<String> = []

  /// The step on a line.
  func step(_ object: JSONObject, line: Int) throws(ScenarioError) -> Scenario.Step {
    let action = try ScenarioFile.step(object, defaultStore: defaultStore, scripted: scripted)
    var step = Scenario.Step(line: line, action: action)
    if let exhaustive = object["exhaustive"] {
      guard let value = exhaustive.boolValue else {
        throw ScenarioError("\"exhaustive\" must be true or false")
      }
      step.exhaustive = value
    }
    return step
  }

  /// The steps in order; one that fails to parse (which the file's check rules out) ends
  /// them with its error.
  func makeIterator() -> Iterator {
    Iterator(steps: self, lines: ScenarioLines(bytes: bytes, range: range, firstLine: firstLine))
  }

  struct Iterator {
    let steps: ScenarioSteps
    var lines: ScenarioLines

    mutating func next() throws(ScenarioError) -> Scenario.Step? {
      guard let (object, line, _) = try lines.next() else { return nil }
      do {
        return try steps.step(object, line: line)
      } catch {
        var error = error
        error.line = line
        throw error
      }
    }
  }
}

/// The JSON objects on the lines of part of a scenario file, with their numbers and places;
/// empty lines and lines starting with `#` are skipped.
struct ScenarioLines {
  let bytes: [UInt8]
  let range: Range<Int>
  private var start: Int
  private var lineNumber: Int

  init(bytes: [UInt8], range: Range<Int>, firstLine: Int) {
    self.bytes = bytes
    self.range = range
    start = range.lowerBound
    lineNumber = firstLine - 1
  }

  mutating func next() throws(ScenarioError) -> (JSONObject, line: Int, range: Range<Int>)? {
    while start < range.upperBound {
      let end =
        bytes[start..<range.upperBound].firstIndex(of: UInt8(ascii: "\n")) ?? range.upperBound
      let line = bytes[start..<end]
      start = end + 1
      lineNumber += 1
      let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
      if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
      let json: JSONValue
      do {
        json = try line.withUnsafeBytes { try JSONParser.parse($0) }
      } catch {
        throw ScenarioError("not JSON: \(error)", line: lineNumber)
      }
      guard let object = json.objectValue else {
        throw ScenarioError("a line must be an object", line: lineNumber)
      }
      return (object, lineNumber, line.startIndex..<end)
    }
    return nil
  }
}

struct ScenarioError: Error, CustomStringConvertible {
  var line: Int?
  let message: String

  init(_ message: String, line: Int? = nil) {
    self.message = message
    self.line = line
  }

  var description: String { line.map { "line \($0): \(message)" } ?? message }

  static func expectKeys(_ object: JSONObject, _ allowed: Set<String>, in context: String)
    throws(ScenarioError)
  {
    if let extra = object.keys.first(where: { !allowed.contains($0) }) {
      throw ScenarioError(
        "\(context): unknown field \"\(extra)\" (known: \(allowed.sorted().joined(separator: ", ")))"
      )
    }
  }
}

enum ScenarioFile {
  /// The largest scenario file read.
  static let maximumBytes = 64 << 20
  /// The argument that names standard input.
  static let standardInput = "-"

  /// The scenarios of a file: each starts at a `{"scenario":…}` line. Empty lines and lines
  /// starting with `#` are skipped.
  /// `scripted` names the steps that give a store's scripted dependency its answers.
  /// `-` is standard input, named `<stdin>` in reports; its `dataDir`s are relative to the
  /// current directory.
  static func read(_ path: String, scripted: Set<String>, on loop: EventLoop)
    async throws(ScenarioError) -> [Scenario]
  {
    let bytes: [UInt8]
    do {
      // Standard input may take any time to end: the loop serves the workers' pipes meanwhile.
      bytes =
        path == standardInput
        ? try await loop.threadPool.run { _ in try FileIO.readStandardInput(limit: maximumBytes) }
        : try FileIO.readAll(path, limit: maximumBytes)
    } catch {
      throw ScenarioError(
        "cannot read \(path): \((error as? FileIO.Failure)?.reason ?? "\(error)")")
    }
    return try parse(bytes, file: path == standardInput ? "<stdin>" : path, scripted: scripted)
  }

  /// The scenarios of a file's bytes; `file` names it in the scenarios and errors. Every line
  /// is checked here; a scenario keeps its steps as the file's text, parsed again as they run
  /// (``ScenarioSteps``).
  static func parse(_ bytes: [UInt8], file path: String, scripted: Set<String>)
    throws(ScenarioError)
    -> [Scenario]
  {
    var scenarios: [Scenario] = []
    var lines = ScenarioLines(bytes: bytes, range: bytes.indices, firstLine: 1)
    while let (object, lineNumber, range) = try lines.next() {
      do throws(ScenarioError) {
        if object["scenario"] != nil {
          var scenario = try header(object, file: path, line: lineNumber)
          let next = min(range.upperBound + 1, bytes.count)
          scenario.steps = ScenarioSteps(
            bytes: bytes, range: next..<next, firstLine: lineNumber + 1,
            defaultStore: object["store"]?.stringValue, scripted: scripted)
          scenarios.append(scenario)
          continue
        }
        guard !scenarios.isEmpty else {
          throw ScenarioError("the first line must be a {\"scenario\":\"name\"} header")
        }
        let steps = scenarios[scenarios.count - 1].steps
        _ = try steps.step(object, line: lineNumber)
        scenarios[scenarios.count - 1].steps.range = steps.range.lowerBound..<range.upperBound
      } catch {
        var error = error
        error.line = lineNumber
        throw error
      }
    }
    guard !scenarios.isEmpty else { throw ScenarioError("\(path) has no scenario") }
    return scenarios
  }

  private static func header(_ object: JSONObject, file: String, line: Int) throws(ScenarioError)
    -> Scenario
  {
    try ScenarioError.expectKeys(
      object,
      [
        "scenario", "exhaustive", "effects", "seed", "startTime", "arguments", "dataDir", "store",
        "initialState", "replay",
      ],
      in: "scenario")
    guard let name = object["scenario"]?.stringValue else {
      throw ScenarioError("\"scenario\" must be the scenario's name")
    }
    var scenario = Scenario(file: file, line: line, name: name)
    if let exhaustive = object["exhaustive"] {
      guard let value = exhaustive.boolValue else {
        throw ScenarioError("\"exhaustive\" must be true or false")
      }
      scenario.exhaustive = value
    }
    if let replay = object["replay"] {
      guard let value = replay.boolValue else {
        throw ScenarioError("\"replay\" must be true or false")
      }
      scenario.replaysRecording = value
    }
    if let effects = object["effects"] {
      guard let value = effects.stringValue.flatMap(Scenario.Effects.init(rawValue:)) else {
        throw ScenarioError("\"effects\" must be \"run\" or \"recorded\"")
      }
      scenario.effects = value
    }
    if let seed = object["seed"] {
      let value =
        seed.intValue.flatMap { UInt64(exactly: $0) } ?? seed.stringValue.flatMap { UInt64($0) }
      guard let value else { throw ScenarioError("\"seed\" must be a non-negative integer") }
      scenario.seed = value
    }
    if let startTime = object["startTime"] {
      guard let value = startTime.intValue, (0...ActionTime.maximumMilliseconds).contains(value)
      else {
        throw ScenarioError(
          "\"startTime\" must be milliseconds since the Unix epoch, 0 to "
            + "\(ActionTime.maximumMilliseconds)")
      }
      scenario.startTime = value
    }
    if let arguments = object["arguments"] {
      guard let value = arguments.stringArray else {
        throw ScenarioError("\"arguments\" must be an array of strings")
      }
      scenario.arguments = value
    }
    if let members = object["initialState"] {
      guard let store = object["store"]?.stringValue, members.objectValue != nil else {
        throw ScenarioError(
          "\"initialState\" is an object of state members, for the header's \"store\"")
      }
      scenario.initialState = (store, members)
    }
    if let dataDir = object["dataDir"] {
      guard let value = dataDir.stringValue else {
        throw ScenarioError("\"dataDir\" must be a path")
      }
      // Relative to the scenario file, wherever `test` runs from.
      scenario.dataDir =
        value.hasPrefix("/") ? value : "\(FileIO.parentDirectory(of: file))/\(value)"
    }
    return scenario
  }

  static func step(_ object: JSONObject, defaultStore: String?, scripted: Set<String>)
    throws(ScenarioError) -> Scenario.Action
  {
    let kinds =
      StoreCatalog.scenarioSteps + scripted.sorted()
    let present = kinds.filter { object[$0] != nil }
    guard present.count == 1, let kind = present.first else {
      throw ScenarioError("a step has exactly one of \(kinds.joined(separator: ", "))")
    }
    let value = object[kind]!
    switch kind {
    case "send", "receive":
      try ScenarioError.expectKeys(
        object,
        Set(
          [kind, "store", "instance", "state", "edit", "patch", "t", "exhaustive"]
            + (kind == "receive" ? ["match"] : [])), in: kind)
      let address = try address(object, kind, defaultStore: defaultStore)
      var expectations: [Scenario.Expectation] = []
      if let edit = object["edit"] {
        guard object["exhaustive"] != false else {
          throw ScenarioError(
            "\"edit\" says what the step changes, which needs an exhaustive step: use \"state\"")
        }
        expectations.append(.edit(try StateEdit(edit)))
      }
      if let state = object["state"] { expectations.append(.state(state)) }
      if let patch = object["patch"] {
        guard patch.arrayValue != nil else { throw ScenarioError("\"patch\" must be an array") }
        expectations.append(.patch(patch))
      }
      let action = value.stringValue.map { JSONValue.object(["type": .string($0)]) } ?? value
      var elapsed: Int?
      if let t = object["t"] {
        guard let value = t.intValue, ActionTime.elapsedRange.contains(value) else {
          throw ScenarioError(
            "\"t\" must be milliseconds since the start, at most "
              + "\(ActionTime.maximumMilliseconds) either way")
        }
        elapsed = value
      }
      if kind == "send" {
        return .send(address, action: action, expectations: expectations, elapsed: elapsed)
      }
      var match: Scenario.ActionMatch?
      if let given = object["match"] {
        guard let name = given.stringValue, let named = Scenario.ActionMatch(rawValue: name) else {
          throw ScenarioError("\"match\" is \"exact\" or \"partial\"")
        }
        match = named
      }
      return .receive(
        address, action: action, match: match, expectations: expectations, elapsed: elapsed)
    case "advance":
      try ScenarioError.expectKeys(object, ["advance"], in: kind)
      // Run's bound: a scenario cannot take the clock where a host could not.
      guard let ms = value.intValue, (0...Session.maxAdvance).contains(ms) else {
        throw ScenarioError(
          "\"advance\" must be whole milliseconds, 0 to \(Session.maxAdvance) (a century)")
      }
      return .advance(ms)
    case "slowWork":
      try ScenarioError.expectKeys(object, [kind], in: kind)
      guard let ms = value.intValue, (0...Session.maxAdvance).contains(ms) else {
        throw ScenarioError(
          "\"slowWork\" must be whole milliseconds, 0 to \(Session.maxAdvance) (a century)")
      }
      return .slowWork(ms)
    case "failWrite":
      try ScenarioError.expectKeys(object, [kind], in: kind)
      guard let name = value.stringValue,
        let code = Scenario.Action.writeFaults.first(where: { $0.key == name })?.value
      else { throw ScenarioError("\"failWrite\" is \"noSpace\" or \"ioError\"") }
      return .failWrite(code)
    case "settle", "quit":
      try ScenarioError.expectKeys(object, [kind], in: kind)
      guard kind == "settle" || value == true else { throw ScenarioError("\"quit\" must be true") }
      return kind == "settle" ? .settle : .quit
    case "check":
      try ScenarioError.expectKeys(object, ["check", "store", "instance"], in: kind)
      let address = try address(object, kind, defaultStore: defaultStore)
      guard let text = value.stringValue else {
        throw ScenarioError("\"check\" is an invariant: \"/count <= 5\", \"length(/items) < 3\"")
      }
      do {
        return .check(address, try Invariant(text))
      } catch {
        throw ScenarioError(error.description)
      }
    case "stop":
      try ScenarioError.expectKeys(object, ["stop", "store", "instance"], in: kind)
      let address = try address(object, kind, defaultStore: defaultStore)
      guard value == true, address.instance != nil else {
        throw ScenarioError("\"stop\" is true, with the \"instance\" to stop")
      }
      return .stop(address)
    case "skipReceivedActions", "skipInFlightEffects":
      try ScenarioError.expectKeys(object, [kind], in: kind)
      guard value == true else { throw ScenarioError("\"\(kind)\" must be true") }
      return kind == "skipReceivedActions" ? .skipReceivedActions : .skipInFlightEffects
    case "http":
      try ScenarioError.expectKeys(object, ["http"], in: kind)
      return .http(try CannedResponse(value))
    case "websocket":
      try ScenarioError.expectKeys(object, ["websocket"], in: kind)
      return .websocket(value)
    case "expect":
      try ScenarioError.expectKeys(object, ["expect"], in: kind)
      return try expectStep(value)
    case "files":
      try ScenarioError.expectKeys(object, ["files"], in: kind)
      return .files(try dataFiles(value))
    case "peer":
      try ScenarioError.expectKeys(object, ["peer"], in: kind)
      return .peer(try peerStep(value))
    default:
      try ScenarioError.expectKeys(object, [kind, "delay"], in: kind)
      guard let answers = value.objectValue else {
        throw ScenarioError("\"\(kind)\" maps each key to its answer: {\"6\":13}")
      }
      return .answers(name: kind, answers, delay: try delay(object["delay"]))
    }
  }

  /// The instance a `send`, `receive` or `check` step names: its `store` (or the header's)
  /// and `instance`.
  private static func address(_ object: JSONObject, _ kind: String, defaultStore: String?)
    throws(ScenarioError) -> InstanceAddress
  {
    guard let store = object["store"]?.stringValue ?? defaultStore else {
      throw ScenarioError("\(kind) needs a \"store\" (or one in the scenario's header)")
    }
    do {
      return InstanceAddress(store, try InstanceAddress.instance(in: .object(object)))
    } catch {
      throw ScenarioError(error.message)
    }
  }

  private static func peerStep(_ value: JSONValue) throws(ScenarioError) -> Scenario.PeerStep {
    guard let object = value.objectValue, object.count == 1, let (kind, body) = object.first
    else {
      throw ScenarioError(Self.peerSteps)
    }
    switch kind {
    case "message":
      return .message(try message(body))
    case "close":
      let (code, reason) = try ScriptedPeer.closeFrame(body, in: "peer close")
      return .close(code: code, reason: reason)
    case "accept":
      guard body == true else { throw ScenarioError("peer accept is true") }
      return .accept
    case "refuse":
      let (code, reason) = try ScriptedPeer.closeFrame(body, in: "peer refuse")
      return .refuse(code: code, reason: reason)
    case "receiveFailure":
      guard let text = body.stringValue else {
        throw ScenarioError("peer receiveFailure is the failure's message")
      }
      return .receiveFailure(text)
    case "expect":
      guard let expectation = body.objectValue else {
        throw ScenarioError("peer expect is {\"sent\":[messages],\"pings\":N}")
      }
      try ScenarioError.expectKeys(expectation, ["sent", "pings"], in: "peer expect")
      var sent: [SocketMessage]?
      if let list = expectation["sent"] {
        guard let items = list.arrayValue else { throw ScenarioError("\"sent\" must be an array") }
        sent = []
        for item in items { sent?.append(try message(item)) }
      }
      return .expect(sent: sent, pings: expectation["pings"]?.intValue)
    default:
      throw ScenarioError(Self.peerSteps)
    }
  }

  private static func expectStep(_ value: JSONValue) throws(ScenarioError) -> Scenario.Action {
    guard let object = value.objectValue, !object.isEmpty else {
      throw ScenarioError(
        "\"expect\" is {\"requests\":[\"GET /path\"],\"files\":{\"name\":content}}")
    }
    try ScenarioError.expectKeys(object, ["requests", "files"], in: "expect")
    var requests: [JSONValue]?
    if let list = object["requests"] {
      guard let items = list.arrayValue, items.allSatisfy(isRequestExpectation) else {
        throw ScenarioError(
          "\"requests\" lists requests as \"METHOD /path?query\", or as "
            + "{\"request\":\"METHOD /path?query\",\"body\":…} to check the body too")
      }
      requests = items
    }
    return .expect(requests: requests, files: try object["files"].map(dataFiles))
  }

  private static func isRequestExpectation(_ item: JSONValue) -> Bool {
    let line: String?
    if let object = item.objectValue {
      guard object.count == 2, object["body"] != nil else { return false }
      line = object["request"]?.stringValue
    } else {
      line = item.stringValue
    }
    guard let line else { return false }
    return line.split(separator: " ").count == 2 && line.contains(" /")
  }

  /// An answer's `"delay"`: virtual milliseconds, 0 when absent. A fraction orders answers due
  /// in the same millisecond (`replay --to-scenario` writes 2.999 and 3 for two answers that
  /// came in that order in millisecond 3); reducers' time counts whole milliseconds, rounded.
  /// At most ``ActionTime/maximumMilliseconds``, the longest a recorded answer can have taken.
  static func delay(_ value: JSONValue?) throws(ScenarioError) -> Duration {
    guard let value else { return .zero }
    guard let ms = value.doubleValue, ms >= 0, ms <= Double(ActionTime.maximumMilliseconds) else {
      throw ScenarioError(
        "\"delay\" must be milliseconds, 0 to \(ActionTime.maximumMilliseconds)")
    }
    return .microseconds(Int64((ms * 1000).rounded()))
  }

  /// `{"name": content}`: files of the data folder, each named by a path inside it.
  private static func dataFiles(_ value: JSONValue) throws(ScenarioError) -> JSONObject {
    guard let named = value.objectValue else {
      throw ScenarioError("\"files\" maps file names in the data folder to their content")
    }
    for (name, _) in named
    where name.isEmpty || name.hasPrefix("/") || name.split(separator: "/").contains("..") {
      throw ScenarioError(
        "\"files\": \(JSONValue.string(name).jsonString) is not a path inside the data folder")
    }
    return named
  }

  private static let peerSteps =
    "\"peer\" has one of message, close, accept, refuse, receiveFailure, expect"

  /// `{"text":"hi"}` or `{"binary":"<base64>"}`.
  static func message(_ json: JSONValue) throws(ScenarioError) -> SocketMessage {
    do {
      return try JSONValueDecoder().decode(SocketMessage.self, from: json)
    } catch {
      throw ScenarioError("a message is {\"text\":…} or {\"binary\":\"<base64>\"}")
    }
  }
}

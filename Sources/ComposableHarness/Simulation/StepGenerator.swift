import ComposableRuntime
import JSON
import Protocol

/// Picks a simulation's steps, each as the scenario line that performs it: a host action from
/// the store's action schemas, an advance of the virtual clock, or a dependency event (an
/// answer or a fault of the scripted HTTP service, the WebSocket peer, a scripted dependency).
@StoreActor
struct StepGenerator {
  let scripted: [String]
  let settings: SimulationSettings
  var values: SchemaValues
  /// The host actions that may be sent, with their weights.
  private let actions: [(ActionDescriptor, Int)]
  /// Bodies an HTTP answer may have: the payloads of the store's success actions, which are
  /// what its requests decode, more often than not.
  private let bodies: [JSONValue]

  init(
    store: StoreDescriptor, scripted: [String], settings: SimulationSettings,
    random: SeededRandom
  ) {
    self.scripted = scripted
    self.settings = settings
    values = SchemaValues(random: random)
    actions = store.actions.filter { $0.sentBy == .host }.map {
      ($0, settings.actions[$0.type] ?? 1)
    }
    .filter { $0.1 > 0 }
    bodies = store.actions.filter { $0.type.hasSuffix(".success") }.compactMap { action in
      action.payload.first { $0.name == "value" }?.schema
    }
  }

  /// The lines every simulation starts with: answers for whatever nothing else answers, so
  /// that an effect's request is never a surprise. A failure, since nothing is known of what
  /// a success would hold.
  var setUp: [JSONObject] {
    [
      [
        "http": [
          "method": "*", "path": "/*", "failure": "connectionFailed", "fallback": true,
        ]
      ]
    ] + scripted.map { [$0: ["*": .null]] }
  }

  /// What a damaged file holds: nothing, a write cut short, not JSON, JSON of another shape.
  static let damaged = ["", "[2,3,", "{\"", "not json", "{}", "[\"x\"]", "null", "\u{FFFD}\u{0}"]

  /// Named instances an action may go to, besides the default one.
  static let instances = ["a", "b"]

  /// The next step, for the states of the store's instances (by key; nil: the default one),
  /// the named instances in memory, the files of the data folder, and the peer as it is.
  mutating func next(
    state: (String?) -> JSONValue, running: [String], files: [String], peerIsOpen: Bool,
    peerIsConnecting: Bool
  ) -> JSONObject {
    // Most actions go to the default instance; some to named ones, each from its own state.
    let instance = values.chance(80) ? nil : values.element(Self.instances)
    values.read(state(instance))
    // A socket the store opened is where its faults matter: the peer acts more often then.
    if (peerIsOpen || peerIsConnecting) && values.chance(25) {
      return webSocket(isOpen: peerIsOpen, isConnecting: peerIsConnecting)
    }
    let kinds = SimulationSettings.stepKinds.map { ($0, settings.weights[$0] ?? 0) }.filter {
      $0.0 != "answers" || !scripted.isEmpty
    }
    switch values.weighted(kinds) {
    case "action":
      // With no action to send (none allowed, or none with an element to name), time passes.
      guard var send = send() else { return advance() }
      if let instance { send["instance"] = .string(instance) }
      return send
    case "http": return http()
    case "websocket": return webSocket(isOpen: peerIsOpen, isConnecting: peerIsConnecting)
    case "answers": return answers()
    case "instances":
      // A stop while its effects run; the next action sent to it starts it again.
      guard !running.isEmpty else { return advance() }
      return ["stop": true, "instance": .string(values.element(running))]
    case "files":
      // For a store that writes files: a file it wrote, damaged (what a crash halfway through
      // a write, another program or a full disk leaves), or its next save failing, as on a
      // full or failing disk.
      guard !files.isEmpty else { return advance() }
      if values.chance(40) {
        return ["failWrite": .string(values.element(["noSpace", "ioError"]))]
      }
      return ["files": [values.element(files): .string(values.element(Self.damaged))]]
    case "work": return ["slowWork": .int(values.element([1, 100, 1000, 5000, 30_000]))]
    default: return advance()
    }
  }

  private func send() -> JSONObject? {
    guard let action = values.weighted(actions) else { return nil }
    // An element action needs an element: without one it would be refused, rightly.
    if action.payload.contains(where: { SchemaValues.namesElement($0.name) && $0.isRequired }),
      values.stateIDs.isEmpty
    {
      return nil
    }
    guard !action.payload.isEmpty else { return ["send": .string(action.type)] }
    var object: JSONObject = ["type": .string(action.type)]
    for field in action.payload where field.isRequired || values.chance(50) {
      object[field.name] = values.value(field.schema, name: field.name)
    }
    return ["send": .object(object)]
  }

  private func advance() -> JSONObject {
    ["advance": .int(values.element([0, 1, 10, 100, 200, 250, 1000, 3000, 10_000, 60_000]))]
  }

  private func http() -> JSONObject {
    var response: JSONObject = ["method": "*", "path": "/*", "times": 1]
    if values.chance(settings.httpFaults) {
      switch values.pick(5) {
      case 0, 1:
        response["failure"] = .string(values.element(["timedOut", "connectionFailed", "tls"]))
      case 2, 3:
        response["status"] = .int(values.element([400, 404, 429, 500, 503]))
        response["body"] = .string(values.element(["", "not found", "{\"error\":\"busy\"}"]))
      default:
        response["body"] = .string(values.element(["", "not json", "[]", "{}"]))
      }
    } else if !settings.httpAnswers.isEmpty {
      response = values.element(settings.httpAnswers)
    } else {
      response["body"] = bodies.isEmpty ? [:] : values.value(values.element(bodies))
    }
    if values.chance(30) { response["delay"] = .int(values.element([1, 100, 1000, 5000, 30_000])) }
    return ["http": .object(response)]
  }

  private func webSocket(isOpen: Bool, isConnecting: Bool) -> JSONObject {
    let fault = values.chance(settings.webSocketFaults)
    if isConnecting {
      return !fault
        ? ["peer": ["accept": true]]
        : [
          "peer": ["refuse": ["code": .int(values.element([1006, 1008, 4000])), "reason": "busy"]]
        ]
    }
    if isOpen, values.chance(80) {
      switch fault ? values.pick(2) : 2 {
      case 0:
        return [
          "peer": [
            "close": [
              "code": .int(values.element([1000, 1001, 1006, 1011, 4001])),
              "reason": .string(values.element(["", "going away", "bye"])),
            ]
          ]
        ]
      case 1:
        return ["peer": ["receiveFailure": .string(values.element(["too large", "not UTF-8"]))]]
      default:
        let text = values.value(["type": "string"])
        return values.chance(80)
          ? ["peer": ["message": ["text": text]]]
          : ["peer": ["message": ["binary": "aGVsbG8="]]]
      }
    }
    var peer: JSONObject = [:]
    if fault {
      peer["accept"] = false
      peer["refusal"] = ["code": .int(values.element([1006, 1002, 4003])), "reason": "refused"]
    } else {
      peer["accept"] = values.chance(25) ? "later" : true
    }
    peer["echo"] = .bool(values.chance(30))
    peer["failSends"] = .bool(values.chance(15))
    return ["websocket": .object(peer)]
  }

  /// Answers a scripted dependency for a key the state suggests (its numbers, its ids).
  private func answers() -> JSONObject {
    let name = values.element(scripted)
    let keys =
      values.stateIDs.map { $0.stringValue ?? $0.jsonString } + values.numbers.map(String.init)
    let key = keys.isEmpty ? "\(values.pick(10))" : values.element(keys)
    let answer: JSONValue =
      settings.answers[name].map { values.element($0) }
      ?? (values.chance(25) ? .null : .int(values.random.int(in: -3...10_000)))
    var line: JSONObject = [name: .object([key: answer])]
    if values.chance(40) { line["delay"] = .int(values.element([1, 500, 5000])) }
    return line
  }
}

import ComposableRuntime
import JSON

/// How `simulate` picks one store's steps: a line of a simulation file (`--file`;
/// docs/SIMULATION.md, schemas/simulation.schema.json). The defaults need no file.
package struct SimulationSettings: Sendable, Equatable {
  package static let stepKinds = [
    "action", "advance", "http", "websocket", "answers", "instances", "files", "work",
  ]
  /// The largest simulation file read.
  package static let maximumBytes = 1 << 20

  /// Relative weights of the kinds of steps.
  package var weights: [String: Int] = [
    "action": 55, "advance": 17, "http": 12, "websocket": 10, "answers": 6, "instances": 3,
    "files": 3, "work": 3,
  ]
  /// Relative weights of host actions by type: 1 for a type not named, 0 leaves it out.
  package var actions: [String: Int] = [:]
  /// What an HTTP event that is no fault answers, each an `http` step's object (without
  /// `times`): a success the store's requests decode. Without any, a body generated from the
  /// store's success actions.
  package var httpAnswers: [JSONObject] = []
  /// Answers of scripted dependencies, by name: values an answer step draws from.
  package var answers: [String: [JSONValue]] = [:]
  /// Percentages of HTTP events that are faults (a failure, an error status, a body that does
  /// not decode), and of WebSocket events that are (a refusal, a close, a receive failure).
  package var httpFaults = 50
  package var webSocketFaults = 20

  package init() {}

  /// The settings of each store a simulation file names, from its bytes.
  package static func read(_ bytes: [UInt8], stores: StoreCatalog) throws(ArgumentsError)
    -> [String: SimulationSettings]
  {
    var settings: [String: SimulationSettings] = [:]
    var number = 0
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      number += 1
      let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
      if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
      do throws(ScenarioError) {
        let json: JSONValue
        do {
          json = try JSONParser.parse(Array(line))
        } catch {
          throw ScenarioError("not JSON: \(error)")
        }
        let (store, parsed) = try Self.line(json, stores: stores)
        guard settings[store] == nil else {
          throw ScenarioError("a second line for the store \(store)")
        }
        settings[store] = parsed
      } catch {
        throw ArgumentsError("line \(number): \(error.message)")
      }
    }
    return settings
  }

  private static func line(_ json: JSONValue, stores: StoreCatalog) throws(ScenarioError)
    -> (String, SimulationSettings)
  {
    guard let object = json.objectValue else { throw ScenarioError("a line must be an object") }
    try ScenarioError.expectKeys(
      object, ["store", "weights", "actions", "http", "answers", "faults"], in: "simulation")
    guard let store = object["store"]?.stringValue,
      let definition = stores.definitions.first(where: { $0.name == store })
    else {
      throw ScenarioError(
        "\"store\" names one of the stores: \(stores.names.joined(separator: ", "))")
    }
    var settings = SimulationSettings()
    if let weights = object["weights"] {
      settings.weights = try counts(weights, "weights", allowed: Set(stepKinds))
      for kind in stepKinds where settings.weights[kind] == nil { settings.weights[kind] = 0 }
      guard settings.weights.values.contains(where: { $0 > 0 }) else {
        throw ScenarioError("\"weights\" needs one kind of step above 0")
      }
    }
    if let actions = object["actions"] {
      let hostActions = definition.actions.filter { $0.sentBy == .host }.map(\.type)
      settings.actions = try counts(actions, "actions", allowed: Set(hostActions))
    }
    if let answers = object["http"] {
      guard let items = answers.arrayValue else {
        throw ScenarioError("\"http\" is an array of answers, as an http step gives them")
      }
      for item in items {
        guard var answer = item.objectValue else {
          throw ScenarioError("\"http\" is an array of answers, as an http step gives them")
        }
        answer["times"] = 1
        _ = try CannedResponse(.object(answer))
        settings.httpAnswers.append(answer)
      }
    }
    if let answers = object["answers"] {
      guard let named = answers.objectValue else {
        throw ScenarioError("\"answers\" maps a scripted dependency to the values it answers")
      }
      for (name, values) in named {
        guard definition.scriptedDependencies.contains(name), let list = values.arrayValue,
          !list.isEmpty
        else {
          throw ScenarioError(
            "\"answers\" maps a dependency the store scripts "
              + "(\(definition.scriptedDependencies.joined(separator: ", "))) to an array of values"
          )
        }
        settings.answers[name] = list
      }
    }
    if let faults = object["faults"] {
      let rates = try counts(faults, "faults", allowed: ["http", "websocket"])
      guard rates.values.allSatisfy({ $0 <= 100 }) else {
        throw ScenarioError("\"faults\" are percentages, 0 to 100")
      }
      settings.httpFaults = rates["http"] ?? settings.httpFaults
      settings.webSocketFaults = rates["websocket"] ?? settings.webSocketFaults
    }
    return (store, settings)
  }

  /// `{"name": N}` with each name allowed and each N a whole number from 0.
  private static func counts(_ json: JSONValue, _ field: String, allowed: Set<String>)
    throws(ScenarioError) -> [String: Int]
  {
    guard let object = json.objectValue else {
      throw ScenarioError("\"\(field)\" maps names to whole numbers")
    }
    var counts: [String: Int] = [:]
    for (name, value) in object {
      guard allowed.contains(name) else {
        throw ScenarioError(
          "\"\(field)\": \"\(name)\" is none of \(allowed.sorted().joined(separator: ", "))")
      }
      guard let count = value.intValue, count >= 0 else {
        throw ScenarioError("\"\(field)\": \"\(name)\" must be a whole number from 0")
      }
      counts[name] = count
    }
    return counts
  }
}

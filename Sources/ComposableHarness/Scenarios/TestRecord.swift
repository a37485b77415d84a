import JSON

/// One entry of a test report: a scenario's outcome, or a file that could not be read or run.
enum TestRecord {
  case scenario(ScenarioOutcome)
  case unreadable(file: String, ScenarioError)

  /// The record as a line of `test --format json` (schemas/test-result.schema.json).
  var json: JSONValue {
    switch self {
    case .scenario(let outcome):
      let scenario = outcome.scenario
      var line: JSONObject = [
        "type": "scenario", "file": .string(scenario.file), "line": .int(scenario.line),
        "name": .string(scenario.name), "passed": .bool(outcome.failure == nil),
      ]
      line["failure"] = outcome.failure?.json
      return .object(line)
    case .unreadable(let file, let error):
      var line: JSONObject = [
        "type": "scenario", "file": .string(file), "passed": false,
        "failure": ["message": .string(error.message)],
      ]
      line["line"] = error.line.map(JSONValue.int)
      return .object(line)
    }
  }

  /// The record a line of `json` describes, all of it: what a worker process of `test -j`
  /// hands its parent, which reports it as if it had run the scenario itself.
  init?(json: JSONValue) {
    guard json["type"]?.stringValue == "scenario", let file = json["file"]?.stringValue,
      let passed = json["passed"]?.boolValue
    else { return nil }
    guard let name = json["name"]?.stringValue else {
      guard !passed, let message = json["failure"]?["message"]?.stringValue else { return nil }
      self = .unreadable(file: file, ScenarioError(message, line: json["line"]?.intValue))
      return
    }
    guard let line = json["line"]?.intValue else { return nil }
    var failure: StepFailure?
    if let object = json["failure"] {
      guard let decoded = StepFailure(json: object) else { return nil }
      failure = decoded
    }
    guard passed == (failure == nil) else { return nil }
    self = .scenario(
      ScenarioOutcome(scenario: Scenario(file: file, line: line, name: name), failure: failure))
  }
}

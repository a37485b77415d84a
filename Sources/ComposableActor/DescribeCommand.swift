import ArgumentParser
import ComposableRuntime
import JSON
import Protocol

extension ComposableActorCommand {
  /// `composable-actor describe`: the `describe` line, without starting a session.
  struct Describe: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "describe",
      abstract: "Print every store's actions (who sends each, payload schema) and state schema.",
      discussion: "The same line {\"cmd\":\"describe\"} answers, from the same descriptors as "
        + "schemas/stores. Exit codes: 0, 74 when standard output cannot be written.")

    func run() throws {
      try ComposableActorCommand.requireAgreeingActionLists()
      let line: JSONValue = [
        "type": "describe", "protocol": 1,
        "stores": .array(ComposableActorCommand.catalog.descriptors.map(\.json)),
      ]
      try ComposableActorCommand.writeOutput(
        line.serialized + [UInt8(ascii: "\n")], to: nil, command: "describe")
    }
  }
}

import ArgumentParser
import ComposableRuntime
import JSON
import Protocol

extension ComposableActorCommand {
  /// Writes each store's action and state schemas, and the catalog that picks them by store
  /// name, generated from the same descriptors that `describe` prints, so `schemas/stores` and
  /// the running binary cannot disagree.
  struct Schemas: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "schemas",
      abstract: "Write the JSON Schemas of every store's actions and state.",
      discussion: "Exit codes: 0, 64 for bad arguments, 74 when a file cannot be written.")

    @Option(help: "Folder to write <store>.actions.schema.json and <store>.state.schema.json to.")
    var output: String

    func run() throws {
      let descriptors = try ComposableActorCommand.describedStores()
      for descriptor in descriptors {
        try write(descriptor.actionSchema, to: "\(output)/\(descriptor.name).actions.schema.json")
        try write(descriptor.stateDocument, to: "\(output)/\(descriptor.name).state.schema.json")
      }
      try write(StoreDescriptor.catalogSchema(descriptors), to: "\(output)/catalog.schema.json")
    }

    private func write(_ document: JSONValue, to path: String) throws {
      var bytes = document.serialized
      bytes.append(UInt8(ascii: "\n"))
      try ComposableActorCommand.writeOutput(bytes, to: path, command: "schemas")
    }
  }
}

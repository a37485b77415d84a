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
      abstract: "Write the JSON Schemas of every store's actions and state.")

    @Option(help: "Folder to write <store>.actions.schema.json and <store>.state.schema.json to.")
    var output: String

    func run() throws {
      // Schemas of actions the type does not have, or without the ones it has, would mislead
      // every host that validates against them.
      let problems = ComposableActorCommand.catalog.definitions.flatMap {
        $0.actionDescriptionProblems
      }
      guard problems.isEmpty else {
        throw ValidationError(
          "the stores' descriptions disagree with their action types:\n"
            + problems.joined(separator: "\n"))
      }
      // Each description walks the store's types: made once for all the files.
      let descriptors = ComposableActorCommand.catalog.descriptors
      for descriptor in descriptors {
        try write(descriptor.actionSchema, to: "\(output)/\(descriptor.name).actions.schema.json")
        try write(descriptor.stateDocument, to: "\(output)/\(descriptor.name).state.schema.json")
      }
      try write(StoreDescriptor.catalogSchema(descriptors), to: "\(output)/catalog.schema.json")
    }

    /// Atomically: a schema file is never left half-written for a host to read.
    private func write(_ document: JSONValue, to path: String) throws {
      var bytes = document.serialized
      bytes.append(UInt8(ascii: "\n"))
      do {
        try FileIO.writeAtomically(bytes, to: path)
      } catch {
        throw ValidationError("cannot write \(path): \(error.reason)")
      }
    }
  }
}

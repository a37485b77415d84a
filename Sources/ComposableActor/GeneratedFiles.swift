import ArgumentParser
import ComposableRuntime
import JSON
import Protocol

/// What the commands that write files from the stores' descriptions (`schemas`, `types`) share.
extension ComposableActorCommand {
  /// Every store's descriptor, or an error when a description disagrees with its action type:
  /// schemas or types of actions the type does not have, or without the ones it has, would
  /// mislead every host that relies on them.
  static func describedStores() throws -> [StoreDescriptor] {
    let problems = catalog.definitions.flatMap { $0.actionDescriptionProblems }
    guard problems.isEmpty else {
      throw ValidationError(
        "the stores' descriptions disagree with their action types:\n"
          + problems.joined(separator: "\n"))
    }
    // Each description walks the store's types: made once for all the files.
    return catalog.descriptors
  }

  /// Atomically: a generated file is never left half-written for a host to read.
  static func writeFile(_ bytes: [UInt8], to path: String) throws {
    do {
      try FileIO.writeAtomically(bytes, to: path)
    } catch {
      throw ValidationError("cannot write \(path): \(error.reason)")
    }
  }
}

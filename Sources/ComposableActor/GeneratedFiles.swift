import ArgumentParser
import ComposableRuntime
import JSON
import Protocol

#if canImport(Glibc)
  import Glibc
#endif

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

  /// Writes a command's output (``FileIO/writeOutput(_:to:)``: a file is never left
  /// half-written for a host to read), or ends the command with 74 (EX_IOERR, as
  /// `run --record` does): an exit of 0 would tell a script its file or pipe got it all.
  static func writeOutput(_ bytes: [UInt8], to path: String?, command: String) throws {
    do {
      try FileIO.writeOutput(bytes, to: path)
    } catch {
      throw failure(of: command, error.reason, code: 74)
    }
  }

  /// Says on stderr why `command` failed; returns the exit code to end with.
  static func failure(of command: String, _ message: String, code: Int32) -> ExitCode {
    try? FileIO.writeAll(Array("\(identity.name) \(command): \(message)\n".utf8), to: STDERR_FILENO)
    return ExitCode(code)
  }
}

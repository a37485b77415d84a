import ComposableRuntime

/// What the scenario runner and replay need from the binary: its stores, and how its `run`
/// command reads arguments (a scenario's `arguments`, a recording's), so that they rebuild the
/// stores exactly as `run` would.
package struct Harness: Sendable {
  package let stores: StoreCatalog
  /// The binary's name, which its messages start with.
  package let name: String
  package let parseArguments: RunArgumentsParser

  package init(
    stores: StoreCatalog, name: String, parseArguments: @escaping RunArgumentsParser
  ) {
    self.stores = stores
    self.name = name
    self.parseArguments = parseArguments
  }

  /// The configuration for a scenario or a replay: `arguments` as recorded or written, with
  /// the virtual clock and the data folder given here taking precedence.
  func configuration(arguments: [String], dataDirectory: String) throws(ArgumentsError)
    -> RunConfiguration
  {
    let kept = removingOptions(["--clock", "--seed", "--data-dir", "--record"], from: arguments)
    return try parseArguments(kept + ["--clock", "virtual", "--data-dir", dataDirectory])
  }
}

/// Reads `run`'s arguments into its configuration.
package typealias RunArgumentsParser =
  @Sendable ([String]) throws(ArgumentsError) ->
  RunConfiguration

/// Why arguments were refused, as the command-line parser says it.
package struct ArgumentsError: Error, CustomStringConvertible {
  package let description: String
  package init(_ description: String) { self.description = description }
}

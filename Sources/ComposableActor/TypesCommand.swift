import ArgumentParser
import ComposableRuntime

extension ComposableActorCommand {
  /// `types`: the stores' state and actions as Python `TypedDict`s or TypeScript declarations,
  /// translated from the descriptors `describe` and `schemas` print, so a host program's types
  /// follow the binary it drives (see ``TypeModule/init(stores:)`` for the names).
  struct Types: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "types",
      abstract: "Write typed definitions of every store's state and actions for host programs.",
      discussion: "Python: a module of TypedDicts for mypy --strict (Python 3.11 or later). "
        + "TypeScript: declarations for a .d.ts file, for tsc --strict. Exit codes: 0, 64 for "
        + "bad arguments, 74 when the output cannot be written.")

    enum Language: String, ExpressibleByArgument, CaseIterable {
      case python
      case typescript
    }

    @Option(help: "The language to write the types in.")
    var language: Language

    @Option(help: "File to write (default: standard output).")
    var output: String?

    func run() throws {
      let module = TypeModule(stores: try ComposableActorCommand.describedStores())
      // The header names the command without --output, so a file and stdout are the same text.
      let command = "\(ComposableActorCommand.identity.name) types --language \(language.rawValue)"
      let source =
        switch language {
        case .python: PythonTypePrinter.source(of: module, generatedBy: command)
        case .typescript: TypeScriptTypePrinter.source(of: module, generatedBy: command)
        }
      try ComposableActorCommand.writeOutput(Array(source.utf8), to: output, command: "types")
    }
  }
}

import ArgumentParser
import ComposableHarness
import ComposableRuntime

#if canImport(Glibc)
  import Glibc
#endif

/// The command line of a ComposableActor binary: `run` (the default), `mcp`, `test`, `simulate`,
/// `replay`, `timeline`, `export`, `describe`, `schemas` and `types`, over the stores it is given.
///
/// A team's binary is its stores and one line:
///
/// ```swift
/// import ComposableActor
///
/// @main struct MyActor {
///   static func main() { ComposableActorCommand.main(stores: [TodoListStore.self]) }
/// }
/// ```
public struct ComposableActorCommand: ParsableCommand {
  /// The framework's version: a binary's own unless `main` is given another.
  public static let version = "0.3.0"

  // Every command names itself: otherwise the parser derives each name from the type's name,
  // which costs start-up time in the runtime's type metadata. Computed: the name and version
  // are the binary's, given to `main`.
  public static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: identity.name,
      abstract: "Drive TCA-style feature stores over JSON lines on stdin and stdout.",
      version: identity.version,
      subcommands: [
        Run.self, MCP.self, Test.self, Simulate.self, Replay.self, Timeline.self, Export.self,
        Describe.self, Schemas.self, Types.self,
      ],
      defaultSubcommand: Run.self)
  }

  public init() {}

  /// Parses the process's arguments and runs the command they name over `stores`, then exits.
  ///
  /// `name` (default: the executable's file name) is what the help calls the binary and names
  /// its default data folder; `version` is what `--version`, `ready` and recordings say.
  /// Runs on the calling thread, which becomes the loop's: call it from a synchronous `main`.
  public static func main(
    stores: [any StoreDefinition.Type], name: String? = nil, version: String = version
  ) -> Never {
    identity = (name ?? executableName(), version)
    catalog = StoreCatalog(stores)
    // A store option named like one of run's would never reach the store. Checking reads every
    // store's option list, whose key paths cost 7% of the start-up's instructions: debug builds,
    // where a team develops its stores, check; release builds do not.
    #if DEBUG
      for store in stores {
        for option in store.optionNames where Run.ownOptionNames.contains(option) {
          preconditionFailure(
            "the store \(store.name) declares --\(option), which is an option of run itself")
        }
      }
    #endif
    // No arguments is `run` with every default, the way hosts start the binary; arguments in
    // the forms hosts use are read by `RunOptions(commonArguments:)`. The argument parser
    // would spend three quarters of the start-up's instructions (six times them, given
    // arguments) finding the same: it reflects over every option of every command, and each
    // type it meets makes the runtime scan all conformance records of the binary. Anything
    // else, and options that do not pass the checks, go to the parser for its messages.
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.isEmpty {
      runWithoutParser { try Run.configuration(storeArguments: []) }
    } else if let options = RunOptions(commonArguments: arguments),
      (try? options.validate()) != nil
    {
      runWithoutParser { try options.configuration() }
    } else {
      main()
    }
    Glibc.exit(0)
  }

  /// Runs `run` with the configuration `configure` makes, without the argument parser.
  private static func runWithoutParser(_ configure: () throws -> RunConfiguration) {
    do {
      try Run.run(configure(), mcp: nil)
    } catch {
      exit(withError: error)
    }
  }

  /// The stores `main(stores:)` was given. Set once, before any command is parsed; read only
  /// after.
  nonisolated(unsafe) static var catalog = StoreCatalog([])
  /// The binary's name and version, as `main` was given them. Set with `catalog`.
  nonisolated(unsafe) static var identity = (name: "composable-actor", version: version)

  /// Stops a command whose stores' action lists disagree with their action types before it
  /// starts (exit 64), rather than when a store is first built.
  static func requireAgreeingActionLists() throws {
    if let disagreement = catalog.actionListDisagreement() {
      throw ValidationError(disagreement)
    }
  }

  /// The file name the process was started as.
  private static func executableName() -> String {
    let path = CommandLine.arguments.first ?? ""
    let name = path.split(separator: "/").last.map(String.init) ?? ""
    return name.isEmpty ? "composable-actor" : name
  }

  /// The stores and `run`'s argument parser, for `test` and `replay`.
  static var harness: Harness {
    Harness(stores: catalog, name: identity.name) { arguments throws(ArgumentsError) in
      do {
        return try Run.parse(arguments).configuration()
      } catch {
        throw ArgumentsError(Run.message(for: error))
      }
    }
  }
}

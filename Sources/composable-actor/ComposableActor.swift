import ArgumentParser

/// `composable-actor`: TCA-style feature stores behind a JSON-lines interface.
@main
struct ComposableActor: ParsableCommand {
  static let version = "0.1.0"

  // Every command names itself: otherwise the parser derives each name from the type's name,
  // which costs start-up time in the runtime's type metadata.
  static let configuration = CommandConfiguration(
    commandName: "composable-actor",
    abstract: "Drive TCA-style feature stores over JSON lines on stdin and stdout.",
    version: version,
    subcommands: [Run.self, Test.self, Replay.self, Describe.self, Schemas.self],
    defaultSubcommand: Run.self)
}

import ComposableCore
import Locks
@_spi(Hosting) import Protocol

/// The stores a binary hosts, in the order `ready` lists them: the one list every command
/// reads.
package struct StoreCatalog: Sendable {
  package let definitions: [any StoreDefinition.Type]

  /// Stops the process with a message when two stores share a name: a mistake in the binary's
  /// `main`, which no input could fix.
  package init(_ definitions: [any StoreDefinition.Type]) {
    // Compared pairwise, as a binary has a handful of stores: a `Set<String>` made the runtime
    // scan every conformance record of the binary for `String: Hashable` at every start.
    for (index, definition) in definitions.enumerated() {
      precondition(
        !definitions[..<index].contains { $0.name == definition.name },
        "two stores are named \"\(definition.name)\"; store names must be unique")
      precondition(!definition.name.isEmpty, "a store's name must not be empty")
    }
    self.definitions = definitions
    // Reading the stores' dependency lists instantiates each dependency's generic type, whose
    // requirements make the runtime scan every conformance record of the binary: a quarter of
    // a release run's start-up. Debug builds, where a team develops its stores, check at
    // start; every build checks where scenarios read the names (`scriptedDependencies`).
    #if DEBUG
      _ = scriptedDependencies
    #endif
  }

  /// The steps a scenario file has besides the scripted dependencies' (docs/SCENARIOS.md): no
  /// dependency may take one of these names.
  package static let scenarioSteps = [
    "send", "receive", "advance", "settle", "peer", "http", "websocket", "skipReceivedActions",
    "skipInFlightEffects", "expect", "files", "slowWork", "failWrite", "check", "stop", "quit",
  ]

  package var names: [String] { definitions.map { $0.name } }

  /// The names of every dependency the stores script: the steps a scenario may use for them.
  /// Stops the process with a message when one is named like a scenario step of its own.
  package var scriptedDependencies: Set<String> {
    var names = Set<String>()
    for definition in definitions {
      for name in definition.scriptedDependencies {
        precondition(
          !Self.scenarioSteps.contains(name),
          "the store \(definition.name) scripts a dependency named \"\(name)\", which is a "
            + "scenario step of its own")
        names.insert(name)
      }
    }
    return names
  }

  package var descriptors: [StoreDescriptor] { definitions.map { $0.descriptor } }

  /// Each store's `StoreFingerprint`, by name. Reads every store's types (as `describe`
  /// does), so only a recording and a replay ask for them.
  package var fingerprints: [String: StoreFingerprint] {
    Dictionary(uniqueKeysWithValues: descriptors.map { ($0.name, StoreFingerprint($0)) })
  }

  /// Every option the stores add, by store.
  package var options: [(store: String, options: [StoreOptionHelp])] {
    definitions.map { ($0.name, $0.optionsHelp) }
  }

  /// Reads the stores' options from arguments (`--name value` or `--name=value`); every store
  /// gets its defaults for the options not given.
  package func parseOptions(_ arguments: [String]) throws(StoreOptionError) -> StoreOptionValues {
    var values = definitions.map { $0.defaultOptions }
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      guard argument.hasPrefix("--"), argument.count > 2 else {
        throw StoreOptionError("unexpected argument '\(argument)'")
      }
      var name = String(argument.dropFirst(2))
      let value: String
      if let equals = name.firstIndex(of: "=") {
        value = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      } else {
        guard index < arguments.count else {
          throw StoreOptionError("missing value for '--\(name)'")
        }
        value = arguments[index]
        index += 1
      }
      var known = false
      for position in definitions.indices where definitions[position].declaresOption(name) {
        known = true
        try definitions[position].setOption(name, to: value, in: &values[position])
      }
      guard known else { throw StoreOptionError("unknown option '--\(name)'") }
    }
    return StoreOptionValues(names: names, values: values)
  }

  /// A factory per store, each building its store on its first line with these services.
  @StoreActor
  package func factories(
    options: StoreOptionValues, services: Services, output: StoreOutput
  ) -> [StoreFactory] {
    zip(definitions, options.values).map { definition, options in
      definition.factory(options: options, services: services, output: output)
    }
  }

  /// The same, with the stores named in `initialStates` starting in that state (JSON, decoded
  /// now) instead of their definition's: a scenario's `initialState`.
  @StoreActor
  package func factories(
    options: StoreOptionValues, services: Services, output: StoreOutput,
    initialStates: [String: JSONValue]
  ) throws(StateDecodingError) -> [StoreFactory] {
    var factories: [StoreFactory] = []
    for (definition, options) in zip(definitions, options.values) {
      if let state = initialStates[definition.name] {
        factories.append(
          try definition.factory(
            options: options, services: services, output: output, initialState: state))
      } else {
        factories.append(definition.factory(options: options, services: services, output: output))
      }
    }
    return factories
  }
}

/// Every store's options, parsed: in the catalog's order.
package struct StoreOptionValues: Sendable {
  let names: [String]
  let values: [any StoreOptions]

  /// The options parsed for `store`, if it is in the catalog they were parsed for.
  package func options<Definition: StoreDefinition>(of store: Definition.Type)
    -> Definition.Options?
  {
    names.firstIndex(of: store.name).flatMap { values[$0] as? Definition.Options }
  }
}

/// An option as the help lists it.
package struct StoreOptionHelp: Sendable {
  /// The option's name, without its dashes.
  package let name: String
  /// The placeholder of its value: `<url>`, `<n>`.
  package let valueName: String
  /// What it sets.
  package let help: String
  /// The default as the help shows it; nil when there is none.
  package let defaultValue: String?
}

extension StoreDefinition {
  /// The names of the options the store adds to `run`, without their dashes.
  package static var optionNames: [String] { Options.arguments.map(\.name) }

  fileprivate static var defaultOptions: any StoreOptions { Options() }

  fileprivate static var hasDecodableState: Bool { Feature.State.self is any Decodable.Type }

  fileprivate static var stateTypeName: String { "\(Feature.State.self)" }

  fileprivate static var optionsHelp: [StoreOptionHelp] {
    let defaults = Options()
    return Options.arguments.map {
      StoreOptionHelp(
        name: $0.name, valueName: $0.valueName, help: $0.help,
        defaultValue: $0.defaultText(defaults))
    }
  }

  fileprivate static func declaresOption(_ name: String) -> Bool {
    Options.arguments.contains { $0.name == name }
  }

  fileprivate static func setOption(
    _ name: String, to value: String, in options: inout any StoreOptions
  )
    throws(StoreOptionError)
  {
    guard var typed = options as? Options else { return }
    for argument in Options.arguments where argument.name == name {
      try argument.set(&typed, value)
    }
    options = typed
  }

  /// The definition's initial state is read when the store is first built, not at start: the
  /// primes store's, made at every start, was a tenth of an empty run's instructions.
  @StoreActor
  fileprivate static func factory(
    options: any StoreOptions, services: Services, output: StoreOutput
  ) -> StoreFactory {
    factory(options, services, output) { initialState }
  }

  @StoreActor
  fileprivate static func factory(
    options: any StoreOptions, services: Services, output: StoreOutput, initialState: JSONValue
  ) throws(StateDecodingError) -> StoreFactory {
    let state = try decodeState(initialState)
    return factory(options, services, output) { state }
  }

  @StoreActor
  private static func factory(
    _ options: any StoreOptions, _ services: Services, _ output: StoreOutput,
    state: @escaping @StoreActor () -> Feature.State
  ) -> StoreFactory {
    let options = options as? Options ?? Options()
    let output = output.sharingHostState()
    let storedState = StoredStateCoding(
      initialState: { initialStateJSON }, stateSchema: { stateSchema },
      decode: { json in try decodeState(json) })
    return StoreFactory(name: name, describe: { descriptor }, storedState: storedState) {
      instance, parkedState in
      // Debug builds only, where a team develops its stores (as `main` checks option names):
      // in a release build, the walk's casts fill the runtime's metadata and conformance
      // caches, and every later action of a store whose path looks up generic metadata paid
      // for the larger caches (1% of a websocket message). Release builds leave it to `test`,
      // `describe` and the host's refusal of an action not described.
      #if DEBUG
        ActionListCheck.require(Self.self)
      #endif
      return _makeHostedStore(
        options: options, services: services.about(instance), output: output.about(instance),
        initialState: parkedState as? Feature.State ?? state()
      ).store
    } reuse: { host, instance, parkedState in
      _reuseHostedStore(
        AnyHostedStore(host), options: options, services: services.about(instance),
        output: output.about(instance), parkedState: parkedState, initialState: state())
    }
  }
}

/// Stops a store from being built while its ``StoreDefinition/actions`` and its action type
/// disagree, once per definition and process.
///
/// Finding the cases walks the action type, whose dynamic casts scan the binary's conformances:
/// too slow for start-up, so it runs when the store is first built, as the first line naming it
/// is read (in debug builds), and commands that can refuse before they start (`test`,
/// `describe`) check every store first. A disagreement is a mistake in the binary no input can
/// fix, as two stores of one name are, so it stops the process.
enum ActionListCheck {
  private static let lock = Lock()
  nonisolated(unsafe) private static var checked: Set<ObjectIdentifier> = []

  static func require(_ definition: any StoreDefinition.Type) {
    guard isFirstCheck(of: definition) else { return }
    let problems = definition.actionListProblems
    precondition(problems.isEmpty, message(problems))
  }

  /// True the first time it is asked for `definition` in this process.
  static func isFirstCheck(of definition: any StoreDefinition.Type) -> Bool {
    lock.withLock { checked.insert(ObjectIdentifier(definition)).inserted }
  }

  static func message(_ problems: [String]) -> String {
    "a store's actions disagree with its action type; describe every case in the definition's "
      + "`actions`, with who sends it:\n" + problems.joined(separator: "\n")
  }
}

extension StoreCatalog {
  /// The stores whose state is not `Decodable`, each as "name (type)": a durable run
  /// (`--state-dir`) cannot read them back.
  package var storesWithoutDecodableState: [String] {
    definitions.filter { !$0.hasDecodableState }.map { "\($0.name) (\($0.stateTypeName))" }
  }

  /// What is wrong with the stores' action lists (see `ActionListCheck`), nil when every
  /// store's agrees with its action type; a store checked here is not checked again when built.
  package func actionListDisagreement() -> String? {
    let problems = definitions.flatMap { definition in
      ActionListCheck.isFirstCheck(of: definition) ? definition.actionListProblems : []
    }
    return problems.isEmpty ? nil : ActionListCheck.message(problems)
  }
}

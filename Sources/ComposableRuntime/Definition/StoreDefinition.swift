import ComposableCore
import JSON
@_spi(Hosting) import Protocol

/// A store a ComposableActor process hosts, declared once: its name, what it accepts and holds,
/// its initial state and reducer, the options it adds to `run`, and how its dependencies are
/// built from the process's ``Services``.
///
/// Everything the process offers follows from this one declaration: `run` hosts the store,
/// `describe` and `schemas` describe it, `test` runs scenario files against it on scripted
/// services, and `replay` re-reduces its recordings.
///
/// ```swift
/// public enum CounterStore: StoreDefinition {
///   public static let name = "counter"
///   public static let summary = "A number that goes up and down."
///   public static let initialState = Counter.State()
///   public static func reducer(options: NoOptions, services: Services) -> Counter { Counter() }
/// }
/// ```
/// and in the binary's `main`: `ComposableActorCommand.main(stores: [CounterStore.self])`.
public protocol StoreDefinition: Sendable {
  /// The feature's reducer: its `State` and `Action` are the store's.
  associatedtype Feature: Reducer
  where Feature.State: Encodable, Feature.Action: ComposableAction
  /// The options the store adds to `run`, `NoOptions` when it adds none.
  associatedtype Options: StoreOptions = NoOptions

  /// The store's name on the wire: `{"store": name, …}`. Unique among a binary's stores.
  static var name: String { get }
  /// One sentence for `describe`.
  static var summary: String { get }
  /// Every case of the action type by its wire type, with who sends it (a host may send only
  /// the `host` ones) and what it does: by default what the
  /// ``/ComposableCore/ComposableAction()`` macro read from the action type's cases. The
  /// payload schemas are read from the type; a payload given here is not used.
  static var actions: [ActionDescriptor] { get }
  /// JSON Schema (2020-12) of the encoded state: by default read from the state's type (see
  /// `TypeSchema`).
  static var stateSchema: JSONValue { get }
  /// The dependencies the services do not cover (``StoreDependency``), each built with
  /// ``Services/dependency(_:live:)``; a scenario scripts each with steps of its name
  /// (`{"nthPrimes": {"6": 13}}`). None by default.
  static var dependencies: [any NamedDependency] { get }
  /// What must hold of every state the store reaches, as the sentences of what does not:
  /// `{ $0.count <= 3 ? [] : ["count \($0.count) is past 3"] }`. Every scenario step and every
  /// `simulate` step checks it (the state must then be `Decodable`). None by default.
  static var invariants: (@Sendable (Feature.State) -> [String])? { get }
  /// The types of the actions whose effects may fail past their reducer (an `effect_failed`
  /// line) by design, as a fire-and-forget write whose failure nothing can act on: every
  /// scenario and `simulate` step takes any other `effect_failed` as a bug. None by default.
  static var effectsThatMayFail: Set<String> { get }

  /// The state every instance of the store starts in.
  static var initialState: Feature.State { get }
  /// The reducer, with its dependencies built from the services (live in `run`, scripted in
  /// `test`) and the parsed options.
  @StoreActor
  static func reducer(options: Options, services: Services) -> Feature

  /// The store on the wire. Not for definitions to implement: the default is specialized for
  /// the store's types where its conformance is compiled, so every action runs code made for
  /// them.
  @StoreActor
  static func _makeHostedStore(
    options: Options, services: Services, output: StoreOutput, initialState: Feature.State
  ) -> AnyHostedStore

  /// Gives `host`, one this definition made, to another instance as ``_makeHostedStore`` would
  /// make it, in the instance's `parkedState` if it has one (a `Feature.State`), else in
  /// `initialState`; false if it cannot. Not for definitions to implement, as that one.
  @StoreActor
  static func _reuseHostedStore(
    _ host: AnyHostedStore, options: Options, services: Services, output: StoreOutput,
    parkedState: Any?, initialState: Feature.State
  ) -> Bool
}

extension StoreDefinition {
  public static var actions: [ActionDescriptor] {
    Feature.Action.describedCases.map {
      ActionDescriptor($0.type, sentBy: $0.sentBy ?? .host, $0.summary ?? "")
    }
  }

  public static var dependencies: [any NamedDependency] { [] }

  /// The names of ``dependencies``: the scenario steps that script them.
  public static var scriptedDependencies: [String] { dependencies.map(\.name) }

  public static var invariants: (@Sendable (Feature.State) -> [String])? { nil }

  public static var effectsThatMayFail: Set<String> { [] }

  /// What ``invariants`` says of the state `json` holds: empty when it holds, or the store
  /// declares none; why it cannot tell when the state does not decode.
  public static func brokenInvariants(of json: JSONValue) -> [String] {
    guard let invariants else { return [] }
    do throws(StateDecodingError) {
      return invariants(try decodeState(json))
    } catch {
      return ["its invariants cannot be checked: \(error.message)"]
    }
  }

  public static var stateSchema: JSONValue { TypeSchema.of(value: initialState) }

  /// The state every store of this definition starts in, as JSON: what a recording's first
  /// patch applies to. Nil if it does not encode (a non-finite number has no JSON).
  public static var initialStateJSON: JSONValue? {
    try? JSONValueEncoder().encode(initialState)
  }

  /// `json` as the store's state, for a scenario that starts from a state of its own (as a
  /// TestStore test passes `initialState:`). The state type must be `Decodable`; its decoding
  /// is the inverse of its encoding.
  ///
  /// ```swift
  /// let state = try CounterStore.decodeState(["count": 5])
  /// ```
  public static func decodeState(_ json: JSONValue) throws(StateDecodingError) -> Feature.State {
    guard let decodable = Feature.State.self as? any Decodable.Type else {
      throw StateDecodingError(
        "the \(name) store's state (\(Feature.State.self)) is not Decodable: conform it to "
          + "Decodable to start a scenario from a state")
    }
    do {
      guard let state = try JSONValueDecoder().decode(decodable, from: json) as? Feature.State
      else { throw StateDecodingError("the decoded state is not a \(Feature.State.self)") }
      return state
    } catch let error as StateDecodingError {
      throw error
    } catch let error as DecodingError {
      throw StateDecodingError("the \(name) store's state does not decode: \(error.contextMessage)")
    } catch {
      throw StateDecodingError("the \(name) store's state does not decode: \(error)")
    }
  }

  @StoreActor
  public static func _makeHostedStore(
    options: Options, services: Services, output: StoreOutput, initialState: Feature.State
  ) -> AnyHostedStore {
    AnyHostedStore(
      StoreHost(
        store: makeStore(options, services, initialState), descriptor: hostDescriptor,
        output: output))
  }

  @StoreActor
  public static func _reuseHostedStore(
    _ host: AnyHostedStore, options: Options, services: Services, output: StoreOutput,
    parkedState: Any?, initialState: Feature.State
  ) -> Bool {
    guard let host = host.store as? StoreHost<Feature.State, Feature.Action> else { return false }
    // Cast here, where the store's types are known: in the catalog's generic factory the cast
    // looked up their metadata on every activation.
    let state = parkedState.map { $0 as? Feature.State } ?? nil
    host.reuse(
      from: state ?? initialState, reducer: reducer(options: options, services: services),
      output: output)
    return true
  }

  @StoreActor
  static func makeStore(_ options: Options, _ services: Services, _ initialState: Feature.State)
    -> Store<Feature.State, Feature.Action>
  {
    Store(initialState: initialState, reducer: reducer(options: options, services: services))
  }
}

/// Why a JSON value could not become a store's state.
public struct StateDecodingError: Error, Sendable, CustomStringConvertible {
  /// What does not fit the state's type, and where.
  public let message: String

  init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}

// Being a requirement, `_makeHostedStore` takes the most constrained of these defaults that the
// store's types meet, chosen where its conformance is compiled: a state that lists its fields
// gets the host that patches field by field.
extension StoreDefinition where Feature.State: FieldwiseEncodable {
  @StoreActor
  public static func _makeHostedStore(
    options: Options, services: Services, output: StoreOutput, initialState: Feature.State
  ) -> AnyHostedStore {
    AnyHostedStore(
      StoreHost(
        store: makeStore(options, services, initialState), descriptor: hostDescriptor,
        output: output))
  }
}

extension StoreDefinition {
  /// Where ``actions`` and the action type disagree: a case not described, or a described
  /// action that is no case; an action with no summary; and any payload or state whose schema
  /// could not be read from its type. Empty when all is well; a store's tests assert that, so that every action says who
  /// sends it and a renamed or removed case cannot leave its description behind.
  ///
  /// ```swift
  /// XCTAssertEqual(TodoListStore.actionDescriptionProblems, [])
  /// ```
  public static var actionDescriptionProblems: [String] {
    let cases = ActionCoding.cases(of: Feature.Action.self)
    var problems = actionListProblems(cases.map(\.type), named: cases.map(\.description))
    for actionCase in cases {
      for field in actionCase.payload where field.schema == [:] {
        problems.append(
          "\(name): the type of \(actionCase.type)'s \(field.name) could not be read (a "
            + "string-backed enum must be CaseIterable, or state its schema)")
      }
    }
    for action in actions where action.summary.isEmpty {
      problems.append(
        "\(name): \(action.type) says nothing of what it does (document its case)")
    }
    if stateSchema == [:] {
      problems.append(
        "\(name): the state's schema could not be read (a string-backed enum must be "
          + "CaseIterable, or state its schema)")
    }
    return problems
  }

  /// Where ``actions`` and the action type disagree: the part of
  /// ``actionDescriptionProblems`` a store cannot be hosted with, since who sends a case not
  /// described was never said.
  public static var actionListProblems: [String] {
    let types = ActionCoding.caseTypes(of: Feature.Action.self)
    return actionListProblems(types, named: types)
  }

  /// The problems of the cases of these types, each named as `names` says.
  private static func actionListProblems(_ types: [String], named names: [String]) -> [String] {
    var problems: [String] = []
    for (type, name) in zip(types, names) where !actions.contains(where: { $0.type == type }) {
      problems.append("\(self.name): the case \(name) is not described")
    }
    for described in actions where !types.contains(described.type) {
      problems.append("\(name): \(described.type) is described but is no case of the action type")
    }
    return problems
  }

  /// What the host of the store reads: its name and who sends each action. The payloads and
  /// the state schema, read from the types, are for `describe`; walking the types when the
  /// store is built would cost its first action milliseconds (the walk's dynamic casts scan
  /// every protocol conformance of the binary), and only a debug build walks even the cases
  /// then (``actionListProblems``).
  public static var hostDescriptor: StoreDescriptor {
    StoreDescriptor(name: name, summary: summary, actions: actions, stateSchema: [:])
  }

  /// What `describe` and the schemas say of the store: every case of the action type, with
  /// its payload read from the type and its sender and summary from ``actions`` (a case not
  /// described there is taken as sent by effects, with no summary).
  public static var descriptor: StoreDescriptor {
    let described = ActionCoding.cases(of: Feature.Action.self).map { actionCase in
      let doc = actions.first { $0.type == actionCase.type }
      return ActionDescriptor(
        actionCase.type, sentBy: doc?.sentBy ?? .effect, doc?.summary ?? "",
        payload: actionCase.payload)
    }
    return StoreDescriptor(
      name: name, summary: summary, actions: described, stateSchema: stateSchema)
  }
}

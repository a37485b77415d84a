import ComposableCore
import JSON
import Protocol

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
///   public static let actions: [ActionDescriptor] = [
///     .init("incrementTapped", sentBy: .host, "Adds one."),
///   ]
///   public static let stateSchema: JSONValue = Schema.object(["count": Schema.integer])
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
  /// Every action, with who sends it: a host may send only the `host` ones.
  static var actions: [ActionDescriptor] { get }
  /// JSON Schema (2020-12) of the encoded state.
  static var stateSchema: JSONValue { get }
  /// Names of the dependencies a scenario scripts with steps of that name
  /// (`{"nthPrimes": {"6": 13}}`), read with ``Services/scripted(_:)``: for dependencies the
  /// services do not cover. None by default.
  static var scriptedDependencies: [String] { get }

  static var initialState: Feature.State { get }
  /// The reducer, with its dependencies built from the services (live in `run`, scripted in
  /// `test`) and the parsed options.
  @StoreActor
  static func reducer(options: Options, services: Services) -> Feature

  /// The store on the wire. Not for definitions to implement: the default is specialized for
  /// the store's types where its conformance is compiled, so every action runs code made for
  /// them.
  @StoreActor
  static func _makeHostedStore(options: Options, services: Services, output: StoreOutput)
    -> any HostedStore
}

extension StoreDefinition {
  public static var scriptedDependencies: [String] { [] }

  @StoreActor
  public static func _makeHostedStore(options: Options, services: Services, output: StoreOutput)
    -> any HostedStore
  {
    let store = Store(
      initialState: initialState, reducer: reducer(options: options, services: services))
    return StoreHost(store: store, descriptor: descriptor, output: output)
  }

}

// Being a requirement, `_makeHostedStore` takes the most constrained of these defaults that the
// store's types meet, chosen where its conformance is compiled: a state that lists its fields
// gets the host that patches field by field.
extension StoreDefinition where Feature.State: FieldwiseEncodable {
  @StoreActor
  public static func _makeHostedStore(options: Options, services: Services, output: StoreOutput)
    -> any HostedStore
  {
    let store = Store(
      initialState: initialState, reducer: reducer(options: options, services: services))
    return StoreHost(store: store, descriptor: descriptor, output: output)
  }
}

extension StoreDefinition {
  /// Where ``actions`` and the action type disagree: a case not described, a described action
  /// that is no case, or payload fields named otherwise than the case's values. Empty when
  /// they agree; a store's tests assert that, so its description cannot drift from its type.
  ///
  /// ```swift
  /// XCTAssertEqual(TodoListStore.actionDescriptionProblems, [])
  /// ```
  public static var actionDescriptionProblems: [String] {
    let cases = ActionCoding.cases(of: Feature.Action.self)
    var problems: [String] = []
    for actionCase in cases {
      guard let described = actions.first(where: { $0.type == actionCase.type }) else {
        problems.append("\(name): the case \(actionCase) is not described")
        continue
      }
      let fields = described.payload.map(\.name)
      if fields != actionCase.fields {
        problems.append(
          "\(name): \(actionCase.type) is described with the fields [\(fields.joined(separator: ", "))] "
            + "but the case has [\(actionCase.fields.joined(separator: ", "))]")
      }
    }
    for described in actions where !cases.contains(where: { $0.type == described.type }) {
      problems.append("\(name): \(described.type) is described but is no case of the action type")
    }
    return problems
  }

  /// What `describe` and the schemas say of the store.
  public static var descriptor: StoreDescriptor {
    StoreDescriptor(name: name, summary: summary, actions: actions, stateSchema: stateSchema)
  }
}

/// Describes how a feature's state changes in response to an action, and which effects follow.
///
/// Write either `reduce(into:action:)`, a plain `switch` over actions, or `body`, a
/// composition of other reducers, exactly as in TCA:
///
/// ```swift
/// struct Counter: Reducer {
///   func reduce(into state: inout Int, action: CounterAction) -> Effect<CounterAction> {
///     switch action {
///     case .incrTapped: state += 1; return .none
///     case .decrTapped: state -= 1; return .none
///     }
///   }
/// }
///
/// struct App: Reducer {
///   var body: some Reducer<AppState, AppAction> {
///     Scope(state: \.count, action: AppAction.Cases.counter) { Counter() }
///     Favorites()
///   }
/// }
/// ```
public protocol Reducer<State, Action> {
  /// The feature's state.
  associatedtype State
  /// The feature's actions: sent by its host, or by its effects.
  associatedtype Action: Sendable
  /// The type of ``body``; `Never` for a reducer that implements
  /// ``reduce(into:action:)``.
  associatedtype Body

  /// Changes `state` for `action`, and returns the effect that follows: ``Effect/none`` when
  /// nothing does.
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// The reducers this one is built from, run in order on every action.
  @ReducerBuilder<State, Action>
  var body: Body { get }

  /// The function a store calls for every action: `reduce(into:action:)`, or for a reducer
  /// built from `body`, its body's, with the body built once here rather than on every action
  /// (building a composed body copies its whole tree of reducers). Not for features to
  /// implement: the default implementations are the only ones a reducer needs; being
  /// requirements, they are chosen where the concrete type is known, so the store runs code
  /// specialized for the whole tree.
  func _makeStoreReduce() -> (inout State, Action) -> Effect<Action>
}

extension Reducer where Body == Never {
  /// A reducer that implements `reduce(into:action:)` has no body.
  public var body: Body {
    fatalError("\(Self.self) has no body; it implements reduce(into:action:)")
  }

  public func _makeStoreReduce() -> (inout State, Action) -> Effect<Action> {
    { self.reduce(into: &$0, action: $1) }
  }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
  /// A reducer built from `body` reduces by running its body.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body.reduce(into: &state, action: action)
  }

  public func _makeStoreReduce() -> (inout State, Action) -> Effect<Action> {
    let body = self.body
    return { body.reduce(into: &$0, action: $1) }
  }
}

/// A reducer from a closure, for small pieces of logic inside a `body`.
public struct Reduce<State, Action: Sendable>: Reducer {
  let reduce: (inout State, Action) -> Effect<Action>

  /// A reducer that runs `reduce`.
  public init(_ reduce: @escaping (inout State, Action) -> Effect<Action>) {
    self.reduce = reduce
  }

  /// A reducer that runs `reducer`'s `reduce(into:action:)`.
  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    self.reduce = reducer.reduce(into:action:)
  }

  /// Runs the closure.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reduce(&state, action)
  }
}

/// A reducer that changes nothing, for builders' empty branches.
public struct EmptyReducer<State, Action: Sendable>: Reducer {
  /// A reducer that changes nothing.
  public init() {}
  /// Changes nothing and returns ``Effect/none``.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}

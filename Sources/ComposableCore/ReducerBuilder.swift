/// Builds one reducer from several listed in a `body`: they run in order on every action and
/// their effects are merged.
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
  /// A reducer listed in a body.
  public static func buildExpression<R: Reducer>(_ reducer: R) -> R
  where R.State == State, R.Action == Action { reducer }

  /// The first reducer of a body.
  public static func buildPartialBlock<R: Reducer>(first: R) -> R
  where R.State == State, R.Action == Action { first }

  /// The reducers so far, then `next`.
  public static func buildPartialBlock<R0: Reducer, R1: Reducer>(
    accumulated: R0, next: R1
  ) -> ReducerSequence<R0, R1>
  where R0.State == State, R0.Action == Action, R1.State == State, R1.Action == Action {
    ReducerSequence(first: accumulated, second: next)
  }

  /// An empty body: a reducer that changes nothing.
  public static func buildBlock() -> EmptyReducer<State, Action> { EmptyReducer() }

  /// An `if` without `else`: the reducer when the condition held.
  public static func buildOptional<R: Reducer>(_ reducer: R?) -> OptionalReducer<R>
  where R.State == State, R.Action == Action { OptionalReducer(wrapped: reducer) }

  /// The `if` branch of an `if`/`else`.
  public static func buildEither<First: Reducer, Second: Reducer>(
    first reducer: First
  ) -> EitherReducer<First, Second>
  where First.State == State, First.Action == Action { .first(reducer) }

  /// The `else` branch of an `if`/`else`.
  public static func buildEither<First: Reducer, Second: Reducer>(
    second reducer: Second
  ) -> EitherReducer<First, Second>
  where Second.State == State, Second.Action == Action { .second(reducer) }
}

/// Two reducers run one after the other; what the first did is visible to the second.
public struct ReducerSequence<First: Reducer, Second: Reducer>: Reducer
where First.State == Second.State, First.Action == Second.Action {
  let first: First
  let second: Second

  public func reduce(into state: inout First.State, action: First.Action) -> Effect<
    First.Action
  > {
    let firstEffect = first.reduce(into: &state, action: action)
    let secondEffect = second.reduce(into: &state, action: action)
    return firstEffect.merge(with: secondEffect)
  }
}

/// A reducer present only when a builder's `if` held.
public struct OptionalReducer<Wrapped: Reducer>: Reducer {
  let wrapped: Wrapped?

  public func reduce(into state: inout Wrapped.State, action: Wrapped.Action) -> Effect<
    Wrapped.Action
  > {
    wrapped?.reduce(into: &state, action: action) ?? .none
  }
}

/// One of two reducers, chosen by a builder's `if`/`else`.
public enum EitherReducer<First: Reducer, Second: Reducer>: Reducer
where First.State == Second.State, First.Action == Second.Action {
  /// The `if` branch's reducer.
  case first(First)
  /// The `else` branch's reducer.
  case second(Second)

  public func reduce(into state: inout First.State, action: First.Action) -> Effect<
    First.Action
  > {
    switch self {
    case .first(let reducer): return reducer.reduce(into: &state, action: action)
    case .second(let reducer): return reducer.reduce(into: &state, action: action)
    }
  }
}

/// Groups reducers into one, e.g. to wrap them together with a higher-order reducer.
public struct CombineReducers<State, Action: Sendable, Reducers: Reducer>: Reducer
where Reducers.State == State, Reducers.Action == Action {
  let reducers: Reducers

  /// The reducers `build` lists, as one.
  public init(@ReducerBuilder<State, Action> _ build: () -> Reducers) {
    self.reducers = build()
  }

  /// Runs the grouped reducers in order.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reducers.reduce(into: &state, action: action)
  }
}

/// Runs a child reducer on a part of the parent's state, for the parent's actions that embed a
/// child action: TCA's `Scope`, PrimeTime's `pullback`.
///
/// ```swift
/// Scope(state: \.counter, action: AppAction.Cases.counter) { CounterReducer() }
/// ```
/// The child state may be a computed property that gathers several parent fields (PrimeTime's
/// "view state"); the child's effects are mapped back into parent actions.
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
  let toChildState: WritableKeyPath<ParentState, Child.State>
  let toChildAction: CasePath<ParentAction, Child.Action>
  let child: Child

  /// Runs `child` on the state at `toChildState` for the parent actions `toChildAction`
  /// extracts; other actions pass by.
  public init<ChildState, ChildAction>(
    state toChildState: WritableKeyPath<ParentState, ChildState>,
    action toChildAction: CasePath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.child = child()
  }

  /// Runs the child for a child action, mapping its effects back; does nothing for others.
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(action) else { return .none }
    return child.reduce(into: &state[keyPath: toChildState], action: childAction)
      .map(toChildAction.embed)
  }
}

extension Reducer {
  /// Runs `child` on optional child state while it exists, TCA's `ifLet`.
  ///
  /// The child reduces its actions before the parent, so the parent sees the child's result.
  /// A child action that arrives while the child state is `nil` is ignored. When the parent
  /// sets the child state to `nil`, the child's running effects are cancelled: a dismissed
  /// screen's work cannot leak into the next one.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifLet(\.detail, action: AppAction.Cases.detail) { Detail() }
  /// ```
  public func ifLet<ChildState, ChildAction, Child: Reducer>(
    _ toChildState: WritableKeyPath<State, ChildState?> & Sendable,
    action toChildAction: CasePath<Action, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> then child: () -> Child
  ) -> IfLetReducer<Self, Child> where ChildState == Child.State, ChildAction == Child.Action {
    IfLetReducer(
      parent: self, child: child(), toChildState: StatePath(toChildState),
      toChildAction: toChildAction)
  }
}

/// The reducer `ifLet` builds.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  let parent: Parent
  let child: Child
  let toChildState: StatePath<Parent.State, Child.State?>
  let toChildAction: CasePath<Parent.Action, Child.Action>

  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<
    Parent.Action
  > {
    let childEffect = reduceChild(into: &state, action: action)
    let wasPresent = isPresent(in: &state)
    let parentEffect = parent.reduce(into: &state, action: action)
    guard wasPresent, !isPresent(in: &state) else {
      return .merge(childEffect, parentEffect)
    }
    return .merge(
      childEffect, parentEffect, .cancel(id: ChildEffectsID(keyPath: toChildState.keyPath)))
  }

  private func reduceChild(into state: inout Parent.State, action: Parent.Action) -> Effect<
    Parent.Action
  > {
    guard let childAction = toChildAction.extract(action), isPresent(in: &state) else {
      return .none
    }
    // In place: a copy reduced and written back would copy every collection the child holds
    // on its first change.
    let effect = child.reduce(into: &state[keyPath: toChildState.keyPath]!, action: childAction)
    return effect.map(toChildAction.embed)
      .cancellable(id: ChildEffectsID(keyPath: toChildState.keyPath))
  }

  private func isPresent(in state: inout Parent.State) -> Bool {
    toChildState.read(in: &state) { $0 != nil }
  }
}

/// The id under which an optional child's effects run, one per child state path.
private struct ChildEffectsID: Hashable, Sendable {
  let keyPath: AnyKeyPath & Sendable

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.keyPath == rhs.keyPath }
  func hash(into hasher: inout Hasher) { hasher.combine(keyPath) }
}

extension Reducer {
  /// Runs `element` on each element of an identified collection, for the parent's actions that
  /// name an element by id: TCA's `forEach`.
  ///
  /// The element reduces its action before the parent, so the parent sees the result. Each
  /// element's effects run in a scope of their own: an id such as `CancelID.timer` given to
  /// `.cancellable`, `.cancel`, `.debounce` or `.throttle` inside the element names that
  /// element's effect only, and when the parent removes an element, every effect it started is
  /// cancelled. An action for an id the collection does not hold changes nothing and is reported
  /// to the store as an `unknownElement` issue (TCA's runtime warning), which a host sees as an
  /// `unknown_element` error line and a `TestStore` as a failure.
  ///
  /// ```swift
  /// struct App: Reducer {
  ///   var body: some Reducer<AppState, AppAction> {
  ///     Reduce { state, action in ... }
  ///       .forEach(\.rows, action: AppAction.Cases.rows) { Row() }
  ///   }
  /// }
  /// ```
  ///
  /// Removed elements are found from the collection's journal of changes, in time
  /// proportional to what the parent changed, not to the number of elements (TCA compares the
  /// ids before and after).
  public func forEach<ElementState, ElementAction, Element: Reducer>(
    _ toElementsState: WritableKeyPath<State, IdentifiedArray<ElementState>> & Sendable,
    action toElementAction: CasePath<Action, IdentifiedAction<ElementState.ID, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element
  ) -> ForEachReducer<Self, Element>
  where ElementState == Element.State, ElementAction == Element.Action {
    ForEachReducer(
      parent: self, element: element(), toElementsState: StatePath(toElementsState),
      toElementAction: toElementAction)
  }
}

/// The reducer `forEach` builds.
public struct ForEachReducer<Parent: Reducer, Element: Reducer>: Reducer
where Element.State: Identifiable, Element.State.ID: Sendable {
  let parent: Parent
  let element: Element
  let toElementsState: StatePath<Parent.State, IdentifiedArray<Element.State>>
  let toElementAction: CasePath<Parent.Action, IdentifiedAction<Element.State.ID, Element.Action>>

  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<
    Parent.Action
  > {
    let elementEffect = reduceElement(into: &state, action: action)
    let before = toElementsState.read(in: &state) { $0.changeToken }
    let parentEffect = parent.reduce(into: &state, action: action)
    let after = toElementsState.read(in: &state) { $0.changeToken }
    guard mayHaveRemoved(from: before, to: after) else {
      return elementEffect.merge(with: parentEffect)
    }
    return .merge(elementEffect, parentEffect, cancelEffectsOfRemoved(from: state))
  }

  /// Whether an element may be gone: the collection's journal tells, in time proportional to
  /// the changes; a collection replaced or sorted says nothing, and may have lost any.
  private func mayHaveRemoved(from before: ChangeToken, to after: ChangeToken) -> Bool {
    guard before != after else { return false }
    guard let changes = after.changes(since: before) else { return true }
    return changes.contains { if case .removed = $0.change { true } else { false } }
  }

  /// Cancels the effects of every element that is not in `state` any more. The store picks
  /// them among the ids it runs effects under, so the cost is that of the running effects
  /// rather than of the elements, and no copy of the elements before the change is kept (the
  /// parent's next change to them would copy them all).
  private func cancelEffectsOfRemoved(from state: Parent.State) -> Effect<Parent.Action> {
    let elements = state[keyPath: toElementsState.keyPath]
    let toElementsState = toElementsState.keyPath
    return Effect(
      .cancelPicked(
        EffectIDFilter { id in
          guard let scope = id.base.base as? ElementScope, scope.elements == toElementsState,
            let elementID = scope.id.base.base as? Element.State.ID
          else { return false }
          return elements.index(id: elementID) == nil
        }))
  }

  private func reduceElement(into state: inout Parent.State, action: Parent.Action) -> Effect<
    Parent.Action
  > {
    guard case .element(let id, let elementAction)? = toElementAction.extract(action) else {
      return .none
    }
    guard let position = toElementsState.read(in: &state, { $0.index(id: id) }) else {
      return .issue(
        ReducerIssue(.unknownElement, "no element has id \(id); the action changed nothing"))
    }
    let effect = element.reduce(
      into: &state[keyPath: toElementsState.keyPath][position], action: elementAction)
    // Most element actions return no effect: they need no scope, which costs an allocation.
    guard !effect.isNone else { return .none }
    let scope = scope(of: id)
    let embed = toElementAction.embed
    return effect.map({ embed(.element(id: id, action: $0)) }, in: scope)
      .cancellable(inScope: scope)
  }

  private func scope(of id: Element.State.ID) -> ElementScope {
    ElementScope(elements: toElementsState.keyPath, id: EffectID(id))
  }
}

/// Where one element's effects run: cancelling it cancels them all.
///
/// A class, though compared by value: `Effect.map` takes an optional scope, and an optional
/// reference is a null check where an optional struct holding an existential costs calls of
/// its value witnesses on every action of every `Scope` (14 instructions a counter action).
final class ElementScope: Hashable, Sendable, CustomStringConvertible {
  let elements: AnyKeyPath & Sendable
  let id: EffectID

  init(elements: AnyKeyPath & Sendable, id: EffectID) {
    self.elements = elements
    self.id = id
  }

  static func == (lhs: ElementScope, rhs: ElementScope) -> Bool {
    lhs.id == rhs.id && lhs.elements == rhs.elements
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(elements)
    hasher.combine(id)
  }

  var description: String { "element \(id)" }

  /// The id an element's own effect id stands for, so that two elements' `CancelID.timer`
  /// differ (TCA's navigation id path).
  func effectID(_ id: EffectID) -> EffectID {
    EffectID(ElementEffectID(scope: self, id: id))
  }
}

private struct ElementEffectID: Hashable, Sendable, CustomStringConvertible {
  let scope: ElementScope
  let id: EffectID

  var description: String { "\(id) of \(scope)" }
}

/// Which of the ids a store runs effects under to cancel.
///
/// (`@unchecked`: the filter holds the elements as they were after a reduction, which need not
/// be `Sendable`; the store runs it on its actor, the one place the state lives.)
struct EffectIDFilter: @unchecked Sendable {
  let picks: (EffectID) -> Bool

  /// The same filter for an effect of an element of `scope`, where its ids were moved into
  /// the scope: how the removed elements of a collection inside an element are found.
  func within(_ scope: ElementScope) -> Self {
    EffectIDFilter { id in
      guard let scoped = id.base.base as? ElementEffectID, scoped.scope == scope else {
        return false
      }
      return picks(scoped.id)
    }
  }
}

extension Effect {
  /// Runs what must wait under the scope's id and leaves the synchronous parts (`.send`,
  /// `.cancel`, an issue) in place, so that an element's `.send` is reduced at once, as any
  /// other's, rather than from a task.
  fileprivate func cancellable(inScope scope: ElementScope) -> Self {
    switch operation {
    case .none, .send, .cancel, .issue, .cancelPicked:
      return self
    case .merge(let effects):
      return .merge(effects.map { $0.cancellable(inScope: scope) })
    case .run, .concatenate, .cancellable, .throttle:
      return cancellable(id: scope)
    }
  }
}

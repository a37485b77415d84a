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
  /// Finding removed elements reads the collection's ids before and after the parent reduces,
  /// as TCA does: time proportional to the number of elements, on every action.
  public func forEach<ElementState, ElementAction, Element: Reducer>(
    _ toElementsState: WritableKeyPath<State, IdentifiedArray<ElementState>> & Sendable,
    action toElementAction: CasePath<Action, IdentifiedAction<ElementState.ID, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element
  ) -> ForEachReducer<Self, Element>
  where ElementState == Element.State, ElementAction == Element.Action {
    ForEachReducer(
      parent: self, element: element(), toElementsState: toElementsState,
      toElementAction: toElementAction)
  }
}

/// The reducer `forEach` builds.
public struct ForEachReducer<Parent: Reducer, Element: Reducer>: Reducer
where Element.State: Identifiable, Element.State.ID: Sendable {
  let parent: Parent
  let element: Element
  let toElementsState: WritableKeyPath<Parent.State, IdentifiedArray<Element.State>> & Sendable
  let toElementAction: CasePath<Parent.Action, IdentifiedAction<Element.State.ID, Element.Action>>

  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<
    Parent.Action
  > {
    let elementEffect = reduceElement(into: &state, action: action)
    let idsBefore = state[keyPath: toElementsState].ids
    let parentEffect = parent.reduce(into: &state, action: action)
    let elements = state[keyPath: toElementsState]
    let removed = idsBefore.filter { elements.index(id: $0) == nil }
    return .merge(
      [elementEffect, parentEffect] + removed.map { .cancel(id: scope(of: $0)) })
  }

  private func reduceElement(into state: inout Parent.State, action: Parent.Action) -> Effect<
    Parent.Action
  > {
    guard case .element(let id, let elementAction)? = toElementAction.extract(action) else {
      return .none
    }
    guard let position = state[keyPath: toElementsState].index(id: id) else {
      return .issue(
        ReducerIssue(.unknownElement, "no element has id \(id); the action changed nothing"))
    }
    let scope = scope(of: id)
    let embed = toElementAction.embed
    return element.reduce(into: &state[keyPath: toElementsState][position], action: elementAction)
      .map({ embed(.element(id: id, action: $0)) }, rewritingIDs: { scope.effectID($0) })
      .cancellable(inScope: scope)
  }

  private func scope(of id: Element.State.ID) -> ElementScope {
    ElementScope(elements: toElementsState, id: EffectID(id))
  }
}

/// Where one element's effects run: cancelling it cancels them all.
struct ElementScope: Hashable, Sendable, CustomStringConvertible {
  let elements: AnyKeyPath & Sendable
  let id: EffectID

  static func == (lhs: Self, rhs: Self) -> Bool {
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

extension Effect {
  /// Runs what must wait under the scope's id and leaves the synchronous parts (`.send`,
  /// `.cancel`, an issue) in place, so that an element's `.send` is reduced at once, as any
  /// other's, rather than from a task.
  fileprivate func cancellable(inScope scope: ElementScope) -> Self {
    switch operation {
    case .none, .send, .cancel, .issue:
      return self
    case .merge(let effects):
      return .merge(effects.map { $0.cancellable(inScope: scope) })
    case .run, .concatenate, .cancellable, .throttle:
      return cancellable(id: scope)
    }
  }
}

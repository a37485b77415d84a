/// An action of one element of a collection that a parent runs with `forEach`: TCA's
/// `IdentifiedAction`.
///
/// ```swift
/// enum AppAction: ComposableAction {
///   case rows(IdentifiedActionOf<Row>)
/// }
/// store.send(.rows(.element(id: 3, action: .toggled)))
/// ```
/// On the wire the element's action is a field in its own wire form, beside the id as the
/// element's id encodes: `{"type":"rows.element","id":3,"action":{"type":"toggled"}}`.
public enum IdentifiedAction<ID: Hashable & Sendable, Action: Sendable>: Sendable {
  case element(id: ID, action: Action)
}

/// The action of the elements `forEach` runs `R` on, TCA's spelling.
public typealias IdentifiedActionOf<R: Reducer> = IdentifiedAction<R.State.ID, R.Action>
where R.State: Identifiable, R.State.ID: Sendable

extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Hashable where Action: Hashable {}
extension IdentifiedAction: Codable where ID: Codable, Action: Codable {}
extension IdentifiedAction: ComposableAction where ID: Codable, Action: ComposableAction {}

extension CasePath {
  /// The path to the action of the element with `id`, through the identified actions this
  /// path reaches: TCA's `\.rows[id: 3]`.
  ///
  /// ```swift
  /// let third = AppAction.Cases.rows[id: 3]
  /// third.embed(.toggled)  // .rows(.element(id: 3, action: .toggled))
  /// third.extract(.rows(.element(id: 4, action: .toggled)))  // nil
  /// ```
  public subscript<ID, ElementAction>(id id: ID) -> CasePath<Root, ElementAction>
  where Value == IdentifiedAction<ID, ElementAction> {
    CasePath<Root, ElementAction>(
      embed: { self.embed(.element(id: id, action: $0)) },
      extract: { root in
        guard case .element(let elementID, let action)? = self.extract(root), elementID == id
        else { return nil }
        return action
      })
  }
}

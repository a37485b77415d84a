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
  /// The action `action` of the element whose id is `id`.
  case element(id: ID, action: Action)
}

/// The action of the elements `forEach` runs `R` on, TCA's spelling.
public typealias IdentifiedActionOf<R: Reducer> = IdentifiedAction<R.State.ID, R.Action>
where R.State: Identifiable, R.State.ID: Sendable

extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Hashable where Action: Hashable {}
extension IdentifiedAction: ComposableAction where ID: Codable, Action: ComposableAction {
  /// `element`, sent by whoever sends the case that holds it and described there: the
  /// element's own action is a field, with its own cases.
  public static var describedCases: [DescribedActionCase] {
    [DescribedActionCase("element", sentBy: nil, summary: nil)]
  }

  /// The decoding ``ComposableAction()`` would write.
  public static func decodeAction(from reader: inout some ActionWireReader) throws -> Self {
    switch try reader.nextCaseName(of: Self.self) {
    case "element":
      let level = reader.enterCase("element")
      return .element(
        id: try reader.value(ID.self, key: "id", level: level),
        action: try reader.value(Action.self, key: "action", level: level))
    default:
      throw reader.unknownCase(of: Self.self)
    }
  }

  /// The encoding ``ComposableAction()`` would write.
  public func encodeAction(to writer: inout some ActionWireWriter) {
    switch self {
    case .element(let id, let action):
      writer.appendCase("element")
      writer.field(id, key: "id")
      writer.field(action, key: "action")
    }
  }
}

// The shape synthesized `Codable` would have (`{"element":{"id":…,"action":…}}`), written out
// so that its keys are not nested in the generic type: the keys of a generic type are generic
// types too, whose metadata the runtime looks up in a hash table on every use, and this
// conformance runs unspecialized, for every element action decoded or encoded. Written out, a
// todo's toggle in the example store took 109,000 instructions instead of 121,000 (callgrind).
private enum IdentifiedActionCase: CodingKey {
  case element
}

private enum IdentifiedActionElement: CodingKey {
  case id
  case action
}

extension IdentifiedAction: Encodable where ID: Encodable, Action: Encodable {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: IdentifiedActionCase.self)
    switch self {
    case .element(let id, let action):
      var element = container.nestedContainer(
        keyedBy: IdentifiedActionElement.self, forKey: .element)
      try element.encode(id, forKey: .id)
      try element.encode(action, forKey: .action)
    }
  }
}

extension IdentifiedAction: Decodable where ID: Decodable, Action: Decodable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: IdentifiedActionCase.self)
    guard container.allKeys == [.element] else {
      throw DecodingError.typeMismatch(
        Self.self,
        DecodingError.Context(
          codingPath: container.codingPath, debugDescription: "expected the one case, element"))
    }
    let element = try container.nestedContainer(
      keyedBy: IdentifiedActionElement.self, forKey: .element)
    self = .element(
      id: try element.decode(ID.self, forKey: .id),
      action: try element.decode(Action.self, forKey: .action))
  }
}

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

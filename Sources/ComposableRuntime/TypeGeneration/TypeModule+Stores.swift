import Protocol

extension TypeModule {
  /// The types of `stores`, from the descriptors `describe` and `schemas` print.
  ///
  /// For a store `primes`: `PrimesState` (and a record per nested object, `PrimesStateAlertNthPrime`),
  /// a record per action (`PrimesCounterCountChangedAction`: its `type` literal and payload),
  /// `PrimesAction` (every action), `PrimesHostAction` (those a host sends) and
  /// `PrimesActionType` (the action types). For the module: `StoreName` first, and last
  /// `StoreStates` and `StoreHostActions`, records from a store's name to its types, which let
  /// a typed wrapper pick the type by the store's name. Each printer adds the typed view of a
  /// client from ``stores`` (Python: `PrimesLine` and `store(client, name)`; TypeScript:
  /// `Stores`). A nested record identical to one declared before (the same failure in
  /// several places) is that one, not a copy under a new name. Stores and actions keep the
  /// descriptors' order, so the output changes only when the stores do.
  package init(stores: [StoreDescriptor]) {
    var translator = SchemaTranslator()
    let storeName = translator.claim("StoreName")
    let storeStates = translator.claim("StoreStates")
    let storeHostActions = translator.claim("StoreHostActions")
    translator.declareAlias(
      storeName, documentation: "The name of every store.", .literal(stores.map(\.name)))
    var states: [TypeField] = []
    var hostActions: [TypeField] = []
    var typed: [StoreTypes] = []
    for store in stores {
      let prefix = TypeNames.pascalCase(store.name)
      let state = translator.declare(
        store.stateSchema, named: prefix + "State",
        documentation: "The state of \(store.name)"
          + (store.summary.isEmpty ? "." : ": \(store.summary)"))
      var all: [TypeExpression] = []
      var fromHost: [TypeExpression] = []
      for action in store.actions {
        let name = translator.claim(prefix + TypeNames.pascalCase(action.type) + "Action")
        let sender = action.sentBy == .host ? "a host" : "its effects"
        translator.declareRecord(
          name,
          documentation: [action.summary, "Sent by \(sender)."].filter { !$0.isEmpty }
            .joined(separator: " "),
          fields: [.init("type", ["const": .string(action.type)])] + action.payload)
        all.append(.reference(name))
        if action.sentBy == .host { fromHost.append(.reference(name)) }
      }
      let action = translator.claim(prefix + "Action")
      translator.declareAlias(
        action, documentation: "Every action of \(store.name).", .union(of: all))
      let hostAction = translator.claim(prefix + "HostAction")
      translator.declareAlias(
        hostAction, documentation: "The actions of \(store.name) a host sends.",
        .union(of: fromHost))
      translator.declareAlias(
        translator.claim(prefix + "ActionType"),
        documentation: "The type of every action of \(store.name).",
        .literal(store.actions.map(\.type)))
      states.append(TypeField(store.name, .reference(state)))
      typed.append(
        StoreTypes(
          name: store.name, state: state, action: action, hostAction: hostAction,
          line: translator.claim(prefix + "Line")))
      hostActions.append(TypeField(store.name, .reference(hostAction)))
    }
    var declarations = translator.declarations
    declarations.append(
      TypeDeclaration(
        storeStates, documentation: "Each store's state, by its name.", .record(states)))
    declarations.append(
      TypeDeclaration(
        storeHostActions, documentation: "The actions a host sends each store, by its name.",
        .record(hostActions)))
    self.init(declarations, stores: typed)
  }
}

/// The types of a binary's stores, before a language is chosen: what `types` prints as Python
/// `TypedDict`s or TypeScript interfaces.
///
/// The model knows only what both languages can say (records, aliases, unions, string literals),
/// so each printer is a plain walk and the two files cannot describe different types.
/// Declarations come in the order they may be printed in: a record's nested records before it,
/// because a Python module evaluates a class's annotations when the class is defined.
package struct TypeModule: Equatable, Sendable {
  /// The named types, in an order they may be printed in.
  package let declarations: [TypeDeclaration]
  /// The stores the declarations describe: what each printer's typed view of a client is made of.
  package let stores: [StoreTypes]

  /// A module of `declarations`, describing `stores`.
  package init(_ declarations: [TypeDeclaration], stores: [StoreTypes] = []) {
    self.declarations = declarations
    self.stores = stores
  }
}

/// The names of one store's declarations.
package struct StoreTypes: Equatable, Sendable {
  /// The store's name on the wire.
  package let name: String
  /// The name of its state's type.
  package let state: String
  /// Every action of the store: what its action lines carry.
  package let action: String
  /// The actions a host sends it: what a typed `send` takes.
  package let hostAction: String
  /// Free for the type of the lines about the store, where a printer declares one.
  package let line: String

  /// The names of one store's types.
  package init(name: String, state: String, action: String, hostAction: String, line: String) {
    self.name = name
    self.state = state
    self.action = action
    self.hostAction = hostAction
    self.line = line
  }
}

/// One named type of a module.
package struct TypeDeclaration: Equatable, Sendable {
  /// What the name stands for.
  package enum Body: Equatable, Sendable {
    /// An object with named members: a `TypedDict`, an `interface`.
    case record([TypeField])
    /// Another name for a type: a union of actions, a literal, a state that is no object.
    case alias(TypeExpression)
  }

  /// An identifier in both languages, unique in the module.
  package let name: String
  /// A comment printed above the type.
  package let documentation: String?
  /// What the name stands for.
  package let body: Body

  /// The type `name`, standing for `body`.
  package init(_ name: String, documentation: String? = nil, _ body: Body) {
    self.name = name
    self.documentation = documentation
    self.body = body
  }
}

/// A member of a record. Its name is the wire name, which need not be an identifier.
package struct TypeField: Equatable, Sendable {
  /// The member's name on the wire.
  package let name: String
  /// The type of its value.
  package let type: TypeExpression
  /// A member the JSON object may lack (not in the schema's `required`).
  package let isRequired: Bool
  /// A comment printed above the member.
  package let documentation: String?

  /// A member `name` of type `type`.
  package init(
    _ name: String, _ type: TypeExpression, required: Bool = true, documentation: String? = nil
  ) {
    self.name = name
    self.type = type
    self.isRequired = required
    self.documentation = documentation
  }
}

/// The type of a value.
package indirect enum TypeExpression: Equatable, Sendable {
  /// A string.
  case string
  /// A whole number.
  case integer
  /// Any number.
  case number
  /// `true` or `false`.
  case boolean
  /// `null`.
  case null
  /// One of these strings.
  case literal([String])
  /// An array whose every element is of this type.
  case array(TypeExpression)
  /// An object used as a dictionary: any member names, every value of this type.
  case map(TypeExpression)
  /// Any of these, in order; no member at all is a type without values. Build it with
  /// ``union(of:)``, which keeps `null` last, as `X | None` and `X | null` read.
  case union([TypeExpression])
  /// A declaration of the module, by name.
  case reference(String)
  /// Any JSON value: what a schema says that neither language can. The reason is printed
  /// beside it, so a reader knows the loss is the generator's and not the schema's.
  case unknown(reason: String)

  /// The union of `members`: nested unions flattened, repeats dropped, `null` moved last, and a
  /// single member standing for itself.
  package static func union(of members: [TypeExpression]) -> TypeExpression {
    var flat: [TypeExpression] = []
    for member in members {
      let parts = if case .union(let inner) = member { inner } else { [member] }
      for part in parts where !flat.contains(part) { flat.append(part) }
    }
    if let null = flat.firstIndex(of: .null) {
      flat.remove(at: null)
      flat.append(.null)
    }
    return flat.count == 1 ? flat[0] : .union(flat)
  }
}

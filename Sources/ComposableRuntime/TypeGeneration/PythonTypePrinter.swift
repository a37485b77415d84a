/// Prints a ``TypeModule`` as a Python module: a `TypedDict` per record, a `TypeAlias` per
/// alias. It targets Python 3.11 (`NotRequired` and `Never` come from `typing`) and
/// `mypy --strict`.
///
/// A record whose member names are all identifiers (and no keyword) is a class; any other is
/// written with `TypedDict`'s functional form, which takes any string as a key.
package enum PythonTypePrinter {
  /// The module's Python source, headed by a comment naming `command` as what generated it.
  package static func source(of module: TypeModule, generatedBy command: String) -> String {
    var printer = Printer()
    var blocks = module.declarations.map { printer.lines(of: $0).joined(separator: "\n") }
    if !module.stores.isEmpty { blocks += typedView(module.stores, &printer) }
    var header = [
      "# " + SourceText.generatedBy(command),
      "# Python 3.11 or later; mypy --strict reads them. `store(client, name)` needs the Python",
      "# client (clients/python), whose `Client` and `AsyncClient` it types.",
      "",
      "from typing import " + printer.imports.sorted().joined(separator: ", "),
    ]
    if !module.stores.isEmpty {
      header += [
        "",
        "from composable_actor import AsyncClient, Client",
        "from composable_actor.typed import AsyncStore, Store, StoreLine",
        "from composable_actor.typed import store as untyped_store",
      ]
    }
    return ([header.joined(separator: "\n")] + blocks).joined(separator: "\n\n\n") + "\n"
  }

  /// Each store's line type, then `store`: overloads that pick a view's types by the client's
  /// kind and the store's name, which mypy reads, over the client's untyped `store`.
  private static func typedView(_ stores: [StoreTypes], _ printer: inout Printer) -> [String] {
    printer.imports.formUnion(["Any", "Literal", "TypeAlias", "overload"])
    let lines = stores.map { store in
      let name = "Literal[\(SourceText.quoted(store.name))]"
      return [
        "# A line about \(store.name): narrow it by its \"type\".",
        "\(store.line): TypeAlias = StoreLine[\(name), \(store.action), \(store.state)]",
      ].joined(separator: "\n")
    }
    let overloads = [("Client", "Store"), ("AsyncClient", "AsyncStore")].flatMap { client, view in
      stores.map { store in
        let name = "Literal[\(SourceText.quoted(store.name))]"
        return [
          "@overload",
          "def store(client: \(client), name: \(name)) -> \(view)[",
          "    \(name), \(store.action), \(store.hostAction), \(store.state)",
          "]: ...",
        ].joined(separator: "\n")
      }
    }
    let implementation = [
      "def store(",
      "    client: Client | AsyncClient, name: StoreName",
      ") -> Store[Any, Any, Any, Any] | AsyncStore[Any, Any, Any, Any]:",
      "    \"\"\"The typed view of the store `name` of `client`: its `send` takes the actions a host",
      "    sends that store, its `state` and `snapshot` return its state, its lines are its",
      "    `…Line`.\"\"\"",
      "    return untyped_store(client, name)",
    ].joined(separator: "\n")
    return lines + [(overloads + [implementation]).joined(separator: "\n\n\n")]
  }
}

private struct Printer {
  var imports: Set<String> = []

  /// The keywords that cannot name a class attribute (`match` and `type` are soft and can).
  private static let keywords: Set<String> = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
    "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
    "while", "with", "yield",
  ]

  mutating func lines(of declaration: TypeDeclaration) -> [String] {
    let comment = declaration.documentation.map(Self.comment(indent: "")) ?? []
    switch declaration.body {
    case .record(let fields):
      imports.insert("TypedDict")
      let isClass = fields.allSatisfy {
        SourceText.isIdentifier($0.name) && !Self.keywords.contains($0.name)
      }
      return comment
        + (isClass ? classLines(declaration.name, fields) : callLines(declaration.name, fields))
    case .alias(let type):
      imports.insert("TypeAlias")
      return comment + aliasLines(declaration.name, type)
    }
  }

  private mutating func classLines(_ name: String, _ fields: [TypeField]) -> [String] {
    let members = fields.flatMap { field in
      (field.documentation.map(Self.comment(indent: "    ")) ?? [])
        + [member(field) { "    \(field.name): \($0)" }]
    }
    return ["class \(name)(TypedDict):"] + (members.isEmpty ? ["    pass"] : members)
  }

  private mutating func callLines(_ name: String, _ fields: [TypeField]) -> [String] {
    let members = fields.flatMap { field in
      (field.documentation.map(Self.comment(indent: "        ")) ?? [])
        + [member(field) { "        \(SourceText.quoted(field.name)): \($0)," }]
    }
    return [
      "\(name) = TypedDict(", "    \(SourceText.quoted(name)),", "    {",
    ] + members + ["    },", ")"]
  }

  /// A record's member, as `line` writes it from its type, with the reasons for any `Any`.
  private mutating func member(_ field: TypeField, _ line: (String) -> String) -> String {
    var reasons: [String] = []
    var type = self.type(field.type, &reasons)
    if !field.isRequired {
      imports.insert("NotRequired")
      type = "NotRequired[\(type)]"
    }
    return line(type) + Self.anyComment(reasons)
  }

  /// `Name: TypeAlias = …`, its union's members or its literal's strings one a line when the
  /// line would be too long (the unions of a store's actions).
  private mutating func aliasLines(_ name: String, _ type: TypeExpression) -> [String] {
    var reasons: [String] = []
    let start = "\(name): TypeAlias = "
    let line = start + self.type(type, &reasons) + Self.anyComment(reasons)
    switch type {
    case .literal(let values) where SourceText.isTooLong(line, members: values.count):
      return [start + "Literal["] + values.map { "    \(SourceText.quoted($0))," } + ["]"]
    case .union(let members) where SourceText.isTooLong(line, members: members.count):
      var lines = [start + "(" + Self.anyComment(reasons)]
      var counted: [String] = []
      for (position, member) in members.enumerated() {
        lines.append("    " + (position == 0 ? "" : "| ") + self.type(member, &counted))
      }
      return lines + [")"]
    default:
      return [line]
    }
  }

  /// The Python type of `type`; the reason of every `Any` in it is added to `reasons`.
  private mutating func type(_ type: TypeExpression, _ reasons: inout [String]) -> String {
    switch type {
    case .string: return "str"
    case .integer: return "int"
    case .number: return "float"
    case .boolean: return "bool"
    case .null: return "None"
    case .literal(let values) where !values.isEmpty:
      imports.insert("Literal")
      return "Literal[" + values.map(SourceText.quoted).joined(separator: ", ") + "]"
    case .literal, .union([]):
      imports.insert("Never")
      return "Never"
    case .array(let element): return "list[\(self.type(element, &reasons))]"
    case .map(let value): return "dict[str, \(self.type(value, &reasons))]"
    case .union(let members):
      return members.map { self.type($0, &reasons) }.joined(separator: " | ")
    case .reference(let name): return name
    case .unknown(let reason):
      imports.insert("Any")
      reasons.append(reason)
      return "Any"
    }
  }

  private static func anyComment(_ reasons: [String]) -> String {
    reasons.isEmpty ? "" : "  # Any: " + reasons.joined(separator: "; ")
  }

  private static func comment(indent: String) -> (String) -> [String] {
    { SourceText.lines($0, prefix: indent + "# ") }
  }
}

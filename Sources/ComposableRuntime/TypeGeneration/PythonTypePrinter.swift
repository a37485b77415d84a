/// Prints a ``TypeModule`` as a Python module: a `TypedDict` per record, a `TypeAlias` per
/// alias. It targets Python 3.11 (`NotRequired` and `Never` come from `typing`) and
/// `mypy --strict`.
///
/// A record whose member names are all identifiers (and no keyword) is a class; any other is
/// written with `TypedDict`'s functional form, which takes any string as a key.
public enum PythonTypePrinter {
  public static func source(of module: TypeModule, generatedBy command: String) -> String {
    var printer = Printer()
    let blocks = module.declarations.map { printer.lines(of: $0).joined(separator: "\n") }
    let header = [
      "# " + SourceText.generatedBy(command),
      "# Python 3.11 or later; mypy --strict reads them.",
      "",
      "from typing import " + printer.imports.sorted().joined(separator: ", "),
    ]
    return ([header.joined(separator: "\n")] + blocks).joined(separator: "\n\n\n") + "\n"
  }
}

private struct Printer {
  private(set) var imports: Set<String> = []

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

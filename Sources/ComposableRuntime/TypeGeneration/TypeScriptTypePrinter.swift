/// Prints a ``TypeModule`` as TypeScript declarations (a `.d.ts` module): an `interface` per
/// record, a `type` per alias, every one exported. `tsc --strict` reads them.
///
/// Both JSON number types are `number`; a member name that is no identifier is quoted.
package enum TypeScriptTypePrinter {
  /// The module's TypeScript declarations, headed by a comment naming `command` as what
  /// generated it.
  package static func source(of module: TypeModule, generatedBy command: String) -> String {
    let header = "// " + SourceText.generatedBy(command)
    var blocks = module.declarations.map { lines(of: $0).joined(separator: "\n") }
    if !module.stores.isEmpty { blocks.append(stores(module.stores)) }
    return ([header] + blocks).joined(separator: "\n\n") + "\n"
  }

  /// `Stores`: each store's types by its name, which the Node client's `typed<Stores>(client)`
  /// reads to type `send`, `state` and the lines of each store.
  private static func stores(_ stores: [StoreTypes]) -> String {
    let members = stores.map { store in
      let name =
        SourceText.isIdentifier(store.name, extra: ["$"])
        ? store.name : SourceText.quoted(store.name)
      return
        "  \(name): { action: \(store.action); hostAction: \(store.hostAction); state: \(store.state) };"
    }
    return
      ([
        "/** Each store's types, by its name: `typed<Stores>(client)` of the Node client reads them. */",
        "export interface Stores {",
      ] + members + ["}"]).joined(separator: "\n")
  }

  private static func lines(of declaration: TypeDeclaration) -> [String] {
    let documentation = declaration.documentation.map(comment(indent: "")) ?? []
    switch declaration.body {
    case .record(let fields):
      let members = fields.flatMap { field in
        let name =
          SourceText.isIdentifier(field.name, extra: ["$"])
          ? field.name : SourceText.quoted(field.name)
        var reasons: [String] = []
        let type = self.type(field.type, &reasons)
        return (field.documentation.map(comment(indent: "  ")) ?? [])
          + ["  \(name)\(field.isRequired ? "" : "?"): \(type);" + unknownComment(reasons)]
      }
      let start = "export interface \(declaration.name) {"
      return documentation + (members.isEmpty ? [start + "}"] : [start] + members + ["}"])
    case .alias(let type):
      var reasons: [String] = []
      let start = "export type \(declaration.name) ="
      let line = "\(start) \(self.type(type, &reasons));" + unknownComment(reasons)
      // A union too long for one line, such as a store's actions, has its members one a line.
      var counted: [String] = []
      let members: [String] =
        switch type {
        case .literal(let values): values.map(SourceText.quoted)
        case .union(let members): members.map { self.type($0, &counted) }
        default: []
        }
      guard SourceText.isTooLong(line, members: members.count) else {
        return documentation + [line]
      }
      var broken = members.map { "  | \($0)" }
      broken[broken.count - 1] += ";"
      return documentation + [start + unknownComment(reasons)] + broken
    }
  }

  /// The TypeScript type of `type`; the reason of every `unknown` in it is added to `reasons`.
  private static func type(_ type: TypeExpression, _ reasons: inout [String]) -> String {
    switch type {
    case .string: return "string"
    case .integer, .number: return "number"
    case .boolean: return "boolean"
    case .null: return "null"
    case .literal(let values) where !values.isEmpty:
      return values.map(SourceText.quoted).joined(separator: " | ")
    case .literal, .union([]): return "never"
    case .array(let element):
      let printed = self.type(element, &reasons)
      // `A | B[]` would be an A or an array of B.
      return printed.contains(" | ") ? "(\(printed))[]" : "\(printed)[]"
    case .map(let value): return "Record<string, \(self.type(value, &reasons))>"
    case .union(let members):
      return members.map { self.type($0, &reasons) }.joined(separator: " | ")
    case .reference(let name): return name
    case .unknown(let reason):
      reasons.append(reason)
      return "unknown"
    }
  }

  private static func unknownComment(_ reasons: [String]) -> String {
    reasons.isEmpty ? "" : " // unknown: " + reasons.joined(separator: "; ")
  }

  /// A JSDoc comment, which editors show with the type.
  private static func comment(indent: String) -> (String) -> [String] {
    { text in
      // `*/` inside would end the comment early.
      let text = text.replacing("*/", with: "*\\/")
      guard text.contains("\n") else { return ["\(indent)/** \(text) */"] }
      return ["\(indent)/**"] + SourceText.lines(text, prefix: indent + " * ") + ["\(indent) */"]
    }
  }
}

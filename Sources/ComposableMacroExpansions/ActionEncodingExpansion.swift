import SwiftSyntax

/// The `encodeAction(to:)` that `@ComposableAction` writes: a switch on the case that writes
/// its name, then each associated value through the protocol layer's writer, under the names
/// synthesized `Codable` gives them, in declaration order.
enum ActionEncodingExpansion {
  static func encodeAction(of enumDecl: EnumDeclSyntax, access: String) -> DeclSyntax {
    var lines = [
      "\(access)func encodeAction(to writer: inout some ComposableCore.ActionWireWriter) {",
      "  switch self {",
    ]
    for member in enumDecl.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      for element in caseDecl.elements {
        let values = (element.parameterClause?.parameters).map { Array($0) } ?? []
        let bindings = values.indices.map { "let value\($0)" }
        let pattern =
          ".\(element.name.text)" + (values.isEmpty ? "" : "(\(bindings.joined(separator: ", ")))")
        lines += [
          "  case \(pattern):",
          "    writer.appendCase(\(ActionDecodingExpansion.wireName(of: element.name)))",
        ]
        for (position, value) in values.enumerated() {
          let write =
            ActionDecodingExpansion.optionalWrapped(value.type) == nil ? "field" : "fieldIfPresent"
          let key = ActionDecodingExpansion.key(of: value, at: position)
          lines.append("    writer.\(write)(value\(position), key: \(key))")
        }
      }
    }
    lines += ["  }", "}"]
    return DeclSyntax(stringLiteral: lines.joined(separator: "\n"))
  }
}

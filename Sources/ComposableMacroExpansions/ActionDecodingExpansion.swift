import SwiftSyntax

/// The `decodeAction(from:)` that `@ComposableAction` writes: a switch on the case name that
/// reads each associated value through the protocol layer's reader, under the names
/// synthesized `Codable` gives them, in declaration order. The naming rules here are
/// ``ActionEncodingExpansion``'s too.
enum ActionDecodingExpansion {
  static func decodeAction(of enumDecl: EnumDeclSyntax, access: String) -> DeclSyntax {
    var lines = [
      "\(access)static func decodeAction(from reader: inout some ComposableCore.ActionWireReader) throws -> Self {",
      "  switch try reader.nextCaseName(of: Self.self) {",
    ]
    for member in enumDecl.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      for element in caseDecl.elements {
        let name = wireName(of: element.name)
        let values = (element.parameterClause?.parameters).map { Array($0) } ?? []
        var construction = ".\(element.name.text)"
        if !values.isEmpty {
          let arguments = values.enumerated().map { position, value in
            let label = label(of: value)
            let key = key(of: value, at: position)
            let read =
              if let wrapped = optionalWrapped(value.type) {
                "try reader.valueIfPresent((\(wrapped.trimmed)).self, key: \(key), level: level)"
              } else {
                "try reader.value((\(value.type.trimmed)).self, key: \(key), level: level)"
              }
            return label.map { "\($0.text): \(read)" } ?? read
          }
          construction += "(\(arguments.joined(separator: ", ")))"
        }
        lines += [
          "  case \(name):",
          "    \(values.isEmpty ? "_ =" : "let level =") reader.enterCase(\(name))",
          "    return \(construction)",
        ]
      }
    }
    lines += ["  default:", "    throw reader.unknownCase(of: Self.self)", "  }", "}"]
    return DeclSyntax(stringLiteral: lines.joined(separator: "\n"))
  }

  /// The case's name as synthesized `Codable` spells it, as a string literal: without the
  /// backquotes of a keyword.
  static func wireName(of name: TokenSyntax) -> String {
    "\(StringLiteralExprSyntax(content: name.identifier?.name ?? name.text))"
  }

  /// The name synthesized `Codable` gives the value at `position`, as a string literal: its
  /// label, or `_0`, `_1`, … by position.
  static func key(of value: EnumCaseParameterSyntax, at position: Int) -> String {
    let name = label(of: value).map { $0.identifier?.name ?? $0.text } ?? "_\(position)"
    return "\(StringLiteralExprSyntax(content: name))"
  }

  private static func label(of value: EnumCaseParameterSyntax) -> TokenSyntax? {
    value.firstName.flatMap { $0.tokenKind == .wildcard ? nil : $0 }
  }

  /// The type an optional is of, for `T?` and `Optional<T>`: synthesized `Codable` reads and
  /// writes those with `decodeIfPresent` and `encodeIfPresent`.
  static func optionalWrapped(_ type: TypeSyntax) -> TypeSyntax? {
    if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
    let named: (name: String, arguments: GenericArgumentClauseSyntax?)? =
      if let identifier = type.as(IdentifierTypeSyntax.self) {
        (identifier.name.text, identifier.genericArgumentClause)
      } else if let member = type.as(MemberTypeSyntax.self),
        member.baseType.trimmedDescription == "Swift"
      {
        (member.name.text, member.genericArgumentClause)
      } else {
        nil
      }
    guard let named, named.name == "Optional", let arguments = named.arguments?.arguments,
      arguments.count == 1, case .type(let wrapped) = arguments.first?.argument
    else { return nil }
    return wrapped
  }
}

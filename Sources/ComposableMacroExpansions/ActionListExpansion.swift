import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ComposableAction`: conforms an enum to `ComposableAction` and lists its cases with who
/// sends each and what it does, read from the case's declaration, so that a store's action list
/// is never written out by hand; and writes how each case reads from and writes to its wire
/// form (`ActionDecodingExpansion`, `ActionEncodingExpansion`).
public protocol ActionListExpansion: ExtensionMacro {}

extension ActionListExpansion {
  public static func expansion(
    of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    guard let enumDecl = declaration.as(EnumDeclSyntax.self) else {
      context.diagnose(
        Diagnostic(node: node, message: ActionMacroMessage.notAnEnum))
      return []
    }
    // The list is as visible as the enum, to witness the protocol's requirement.
    let access =
      enumDecl.modifiers.first { ["public", "package"].contains($0.name.text) }
      .map { "\($0.name.text) " } ?? ""

    var statements: [String] = []
    for member in enumDecl.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      let sender = caseDecl.attributes.contains { isSentByEffect($0) } ? ".effect" : ".host"
      let summary = documentation(of: caseDecl).map { "\(StringLiteralExprSyntax(content: $0))" }
      for element in caseDecl.elements {
        let name = element.name.identifier?.name ?? element.name.text
        var arguments = "\(StringLiteralExprSyntax(content: name))"
        if let first = element.parameterClause?.parameters.first,
          first.firstName == nil || first.firstName?.tokenKind == .wildcard
        {
          arguments += ", firstValue: (\(first.type.trimmed)).self"
        }
        arguments += ", sentBy: \(sender), summary: \(summary ?? "nil")"
        statements.append("cases += ComposableCore.DescribedActionCase.case(\(arguments))")
      }
    }
    // A stored property where the type allows one, so the list is built once; one statement per
    // case, so each overloaded call is type-checked on its own.
    let body = """
      {
        var cases: [ComposableCore.DescribedActionCase] = []
        \(statements.joined(separator: "\n  "))
        return cases
      }
      """
    let member: DeclSyntax =
      enumDecl.genericParameterClause == nil
      ? "\(raw: access)static let describedCases: [ComposableCore.DescribedActionCase] = \(raw: body)()"
      : "\(raw: access)static var describedCases: [ComposableCore.DescribedActionCase] \(raw: body)"
    let conformance = protocols.isEmpty ? "" : ": ComposableCore.ComposableAction"
    let decoding = ActionDecodingExpansion.decodeAction(of: enumDecl, access: access)
    let encoding = ActionEncodingExpansion.encodeAction(of: enumDecl, access: access)
    let decl: DeclSyntax = """
      extension \(type.trimmed)\(raw: conformance) {
        \(member)

        \(decoding)

        \(encoding)
      }
      """
    guard let extensionDecl = decl.as(ExtensionDeclSyntax.self) else { return [] }
    return [extensionDecl]
  }

  private static func isSentByEffect(_ attribute: AttributeListSyntax.Element) -> Bool {
    guard case .attribute(let attribute) = attribute else { return false }
    return attribute.attributeName.trimmedDescription.hasSuffix("SentByEffect")
  }

  /// The case's documentation comment as one line: `///` lines, or a `/** */` block, right
  /// above it; a plain comment or a blank line above the case ends it. ``Symbol`` links read as
  /// `Symbol`.
  static func documentation(of caseDecl: EnumCaseDeclSyntax) -> String? {
    var lines: [String] = []
    for piece in caseDecl.leadingTrivia {
      switch piece {
      case .docLineComment(let text):
        lines.append(String(text.dropFirst(3)))
      case .docBlockComment(let text):
        lines += text.dropFirst(3).dropLast(2).split(separator: "\n").map {
          String($0.drop { $0 == " " || $0 == "*" })
        }
      case .lineComment, .blockComment:
        lines = []
      case .newlines(let count) where count > 1:
        lines = []
      default:
        continue
      }
    }
    let words = lines.joined(separator: " ").split(whereSeparator: \.isWhitespace)
    guard !words.isEmpty else { return nil }
    return words.joined(separator: " ").replacing("``", with: "`")
  }
}

/// `@SentByEffect`: only marks a case; ``ActionListExpansion`` reads it.
public protocol SentByEffectExpansion: MarkerExpansion {}

extension SentByEffectExpansion {
  public static func marks(_ declaration: some DeclSyntaxProtocol) -> Bool {
    declaration.is(EnumCaseDeclSyntax.self)
  }

  public static var misplaced: any DiagnosticMessage { ActionMacroMessage.notACase }
}

enum ActionMacroMessage: String, DiagnosticMessage {
  case notAnEnum = "@ComposableAction applies to an enum of actions"
  case notACase = "@SentByEffect marks a case of a @ComposableAction enum"

  var message: String { rawValue }
  var diagnosticID: MessageID { MessageID(domain: "ComposableMacros", id: "\(self)") }
  var severity: DiagnosticSeverity { .error }
}

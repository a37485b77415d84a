import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@FieldwiseState`: conforms a struct to `FieldwiseEncodable` from its declaration. The
/// members are its stored instance properties not marked `@NotEncoded` and its computed ones
/// marked `@EncodedMember`, in the order they are declared. It writes their list
/// (`encodedFields`) and a `FieldTracker` that keeps each member's last value in a field of
/// its own and compares it inline, which is what a host does after every action: no closure,
/// no existential, and a derived member computed once.
public protocol FieldwiseStateExpansion: ExtensionMacro {}

extension FieldwiseStateExpansion {
  public static func expansion(
    of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      context.diagnose(Diagnostic(node: node, message: StateMacroMessage.notAStruct))
      return []
    }
    var members: [(name: String, key: String, type: String)] = []
    var isComplete = true
    for member in structDecl.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self),
        !variable.modifiers.contains(where: {
          [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind)
        })
      else { continue }
      let isMarked = variable.attributes.contains { hasName($0, "EncodedMember") }
      let isExcluded = variable.attributes.contains { hasName($0, "NotEncoded") }
      for binding in variable.bindings {
        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
        let isComputed = binding.accessorBlock.map(isComputed) ?? false
        guard isComputed ? isMarked : !isExcluded else { continue }
        // The tracker declares a field of the member's type: it must be written out.
        guard let type = binding.typeAnnotation?.type.trimmedDescription else {
          context.diagnose(
            Diagnostic(node: binding, message: StateMacroMessage.typeNeeded))
          isComplete = false
          continue
        }
        let name = identifier.identifier.text
        let key = identifier.identifier.identifier?.name ?? name
        members.append((name, key, type))
      }
    }
    guard isComplete else { return [] }

    let access =
      structDecl.modifiers.first { ["public", "package"].contains($0.name.text) }
      .map { "\($0.name.text) " } ?? ""
    let typeName = type.trimmedDescription
    let list = members.map {
      "ComposableCore.EncodedField(\(StringLiteralExprSyntax(content: $0.key)), \\.\($0.name))"
    }
    let fields = members.map {
      "var \($0.name): ComposableCore.FieldMemo<\($0.type)>"
    }
    let initial = members.map { "self.\($0.name) = ComposableCore.FieldMemo(initial.\($0.name))" }
    // Each member is read once, so a derived one is computed once, and passed on as read.
    let reports = members.enumerated().map { index, member in
      """
      let value\(index) = new.\(member.name)
            if self.\(member.name).update(value\(index)) { sink.member(\(index), changedTo: value\(index)) }
      """
    }
    // A generic struct cannot have a stored static property.
    let listDecl =
      structDecl.genericParameterClause == nil
      ? "\(access)static let encodedFields: [ComposableCore.EncodedField<\(typeName)>] = ["
      : "\(access)static var encodedFields: [ComposableCore.EncodedField<\(typeName)>] { ["
    let listEnd = structDecl.genericParameterClause == nil ? "]" : "] }"
    let conformance = protocols.isEmpty ? "" : ": ComposableCore.FieldwiseEncodable"
    let decl: DeclSyntax = """
      extension \(raw: typeName)\(raw: conformance) {
        \(raw: listDecl)
          \(raw: list.joined(separator: ",\n    "))
        \(raw: listEnd)

        \(raw: access)struct FieldTracker: ComposableCore.FieldChangeTracker {
          \(raw: fields.joined(separator: "\n    "))

          \(raw: access)init(_ initial: \(raw: typeName)) {
            \(raw: initial.joined(separator: "\n      "))
          }

          \(raw: access)mutating func reportChanges(
            to new: \(raw: typeName), into sink: inout some ComposableCore.FieldChangeSink
          ) {
            \(raw: reports.joined(separator: "\n      "))
          }
        }
      }
      """
    guard let extensionDecl = decl.as(ExtensionDeclSyntax.self) else { return [] }
    return [extensionDecl]
  }

  private static func hasName(_ attribute: AttributeListSyntax.Element, _ name: String) -> Bool {
    guard case .attribute(let attribute) = attribute else { return false }
    return attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init)
      == name
  }

  /// A getter, or `get`/`set` accessors, rather than observers of a stored property.
  private static func isComputed(_ accessors: AccessorBlockSyntax) -> Bool {
    switch accessors.accessors {
    case .getter:
      return true
    case .accessors(let list):
      return list.contains {
        [.keyword(.get), .keyword(._read), .keyword(.unsafeAddress)].contains(
          $0.accessorSpecifier.tokenKind)
      }
    }
  }
}

/// `@EncodedMember` and `@NotEncoded`: only mark a property; ``FieldwiseStateExpansion``
/// reads them.
public protocol EncodedMemberMarkerExpansion: MarkerExpansion {}

extension EncodedMemberMarkerExpansion {
  public static func marks(_ declaration: some DeclSyntaxProtocol) -> Bool {
    declaration.is(VariableDeclSyntax.self)
  }

  public static var misplaced: any DiagnosticMessage { StateMacroMessage.notAProperty }
}

enum StateMacroMessage: String, DiagnosticMessage {
  case notAStruct = "@FieldwiseState applies to a struct"
  case notAProperty =
    "@EncodedMember and @NotEncoded mark a property of a @FieldwiseState struct"
  case typeNeeded =
    "@FieldwiseState needs the type of each encoded member written out (`var count: Int = 0`)"

  var message: String { rawValue }
  var diagnosticID: MessageID { MessageID(domain: "ComposableMacros", id: "\(self)") }
  var severity: DiagnosticSeverity { .error }
}

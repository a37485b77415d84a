import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A macro that only marks a declaration for another macro to read (`@SentByEffect` for
/// ``ActionListExpansion``, `@EncodedMember` and `@NotEncoded` for ``FieldwiseStateExpansion``):
/// it adds nothing, and says so when it is put on a declaration of the wrong kind.
public protocol MarkerExpansion: PeerMacro {
  /// Whether the attribute is on a declaration of the kind it marks.
  static func marks(_ declaration: some DeclSyntaxProtocol) -> Bool
  /// What the compiler says when it is not.
  static var misplaced: any DiagnosticMessage { get }
}

extension MarkerExpansion {
  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    if !marks(declaration) {
      context.diagnose(Diagnostic(node: node, message: misplaced))
    }
    return []
  }
}

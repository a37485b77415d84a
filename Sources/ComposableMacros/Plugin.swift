import ComposableMacroExpansions
import SwiftCompilerPlugin
import SwiftSyntaxMacros

// The compiler finds a macro by the module and name of its type in the plugin, so the types are
// declared here; what they do is ComposableMacroExpansions', which the tests link.
public struct ComposableActionMacro: ActionListExpansion {}
public struct SentByEffectMacro: SentByEffectExpansion {}
public struct FieldwiseStateMacro: FieldwiseStateExpansion {}
public struct EncodedMemberMarkerMacro: EncodedMemberMarkerExpansion {}

@main
struct ComposableMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [
    ComposableActionMacro.self, SentByEffectMacro.self, FieldwiseStateMacro.self,
    EncodedMemberMarkerMacro.self,
  ]
}

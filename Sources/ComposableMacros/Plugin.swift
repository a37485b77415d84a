import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct ComposableMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [ComposableActionMacro.self, SentByEffectMacro.self]
}

import ComposableMacroExpansions
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosTestSupport
import XCTest

private struct ComposableActionMacro: ActionListExpansion {}
private struct SentByEffectMacro: SentByEffectExpansion {}

final class ComposableActionMacroTests: XCTestCase {
  /// As the compiler calls them: the enum does not conform yet.
  private let macros: [String: MacroSpec] = [
    "ComposableAction": MacroSpec(
      type: ComposableActionMacro.self, conformances: ["ComposableAction"]),
    "SentByEffect": MacroSpec(type: SentByEffectMacro.self),
  ]
  /// As the compiler calls them on an enum that already conforms.
  private let macrosOnAConformingEnum: [String: MacroSpec] = [
    "ComposableAction": MacroSpec(type: ComposableActionMacro.self)
  ]

  func testEachCaseIsListedWithItsSenderAndItsDocumentation() {
    assertMacroExpansion(
      """
      @ComposableAction
      public enum CounterAction: Equatable {
        /// Adds one to count.
        case incrTapped
        // Not documentation.
        case decrTapped
        /// Sets count, as if "typed"
        /// into the field.
        case countChanged(Int)
        /// The answer (``Int``).
        @SentByEffect
        case nthPrimeResponse(Int?), `default`(n: Int)
      }
      """,
      expandedSource: """
        public enum CounterAction: Equatable {
          /// Adds one to count.
          case incrTapped
          // Not documentation.
          case decrTapped
          /// Sets count, as if "typed"
          /// into the field.
          case countChanged(Int)
          /// The answer (``Int``).
          case nthPrimeResponse(Int?), `default`(n: Int)
        }

        extension CounterAction: ComposableCore.ComposableAction {
          public static let describedCases: [ComposableCore.DescribedActionCase] = {
            var cases: [ComposableCore.DescribedActionCase] = []
            cases += ComposableCore.DescribedActionCase.case("incrTapped", sentBy: .host, summary: "Adds one to count.")
            cases += ComposableCore.DescribedActionCase.case("decrTapped", sentBy: .host, summary: nil)
            cases += ComposableCore.DescribedActionCase.case("countChanged", firstValue: (Int).self, sentBy: .host, summary: #"Sets count, as if "typed" into the field."#)
            cases += ComposableCore.DescribedActionCase.case("nthPrimeResponse", firstValue: (Int?).self, sentBy: .effect, summary: "The answer (`Int`).")
            cases += ComposableCore.DescribedActionCase.case("default", sentBy: .effect, summary: "The answer (`Int`).")
            return cases
          }()
        }
        """,
      macroSpecs: macros, indentationWidth: .spaces(2))
  }

  func testAGenericEnumComputesItsListAndAConformingOneKeepsItsConformance() {
    assertMacroExpansion(
      """
      @ComposableAction
      enum Loaded<Value: Codable & Sendable>: ComposableAction {
        /// Loaded.
        case success(Value)
      }
      """,
      expandedSource: """
        enum Loaded<Value: Codable & Sendable>: ComposableAction {
          /// Loaded.
          case success(Value)
        }

        extension Loaded {
          static var describedCases: [ComposableCore.DescribedActionCase] {
            var cases: [ComposableCore.DescribedActionCase] = []
            cases += ComposableCore.DescribedActionCase.case("success", firstValue: (Value).self, sentBy: .host, summary: "Loaded.")
            return cases
          }
        }
        """,
      macroSpecs: macrosOnAConformingEnum, indentationWidth: .spaces(2))
  }

  func testOnlyAnEnumAndItsCasesTakeTheMacros() {
    assertMacroExpansion(
      """
      @ComposableAction
      struct NotAnEnum {
        @SentByEffect
        var value: Int
      }
      """,
      expandedSource: """
        struct NotAnEnum {
          var value: Int
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "@SentByEffect marks a case of a @ComposableAction enum", line: 3, column: 3),
        DiagnosticSpec(
          message: "@ComposableAction applies to an enum of actions", line: 1, column: 1),
      ],
      macroSpecs: macros, indentationWidth: .spaces(2))
  }
}

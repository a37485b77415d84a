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

          public static func decodeAction(from reader: inout some ComposableCore.ActionWireReader) throws -> Self {
            switch try reader.nextCaseName(of: Self.self) {
            case "incrTapped":
              _ = reader.enterCase("incrTapped")
              return .incrTapped
            case "decrTapped":
              _ = reader.enterCase("decrTapped")
              return .decrTapped
            case "countChanged":
              let level = reader.enterCase("countChanged")
              return .countChanged(try reader.value((Int).self, key: "_0", level: level))
            case "nthPrimeResponse":
              let level = reader.enterCase("nthPrimeResponse")
              return .nthPrimeResponse(try reader.valueIfPresent((Int).self, key: "_0", level: level))
            case "default":
              let level = reader.enterCase("default")
              return .`default`(n: try reader.value((Int).self, key: "n", level: level))
            default:
              throw reader.unknownCase(of: Self.self)
            }
          }

          public func encodeAction(to writer: inout some ComposableCore.ActionWireWriter) {
            switch self {
            case .incrTapped:
              writer.appendCase("incrTapped")
            case .decrTapped:
              writer.appendCase("decrTapped")
            case .countChanged(let value0):
              writer.appendCase("countChanged")
              writer.field(value0, key: "_0")
            case .nthPrimeResponse(let value0):
              writer.appendCase("nthPrimeResponse")
              writer.fieldIfPresent(value0, key: "_0")
            case .`default`(let value0):
              writer.appendCase("default")
              writer.field(value0, key: "n")
            }
          }
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

          static func decodeAction(from reader: inout some ComposableCore.ActionWireReader) throws -> Self {
            switch try reader.nextCaseName(of: Self.self) {
            case "success":
              let level = reader.enterCase("success")
              return .success(try reader.value((Value).self, key: "_0", level: level))
            default:
              throw reader.unknownCase(of: Self.self)
            }
          }

          func encodeAction(to writer: inout some ComposableCore.ActionWireWriter) {
            switch self {
            case .success(let value0):
              writer.appendCase("success")
              writer.field(value0, key: "_0")
            }
          }
        }
        """,
      macroSpecs: macrosOnAConformingEnum, indentationWidth: .spaces(2))
  }

  /// Each value is read and written under the name synthesized `Codable` gives it (its label,
  /// or `_0`, `_1`, … by position), an optional one with `valueIfPresent` and
  /// `fieldIfPresent`, in declaration order.
  func testTheDecodingAndTheEncodingUseEachValuesSynthesizedName() {
    assertMacroExpansion(
      """
      @ComposableAction
      enum RowAction {
        case scoped(ToggleAction, flag: Bool)
        case mixed(Int, label: Optional<String>)
        case pair(_ name: String, Swift.Optional<Int>)
        case alert(AlertAction?), `type`(value: [Int])
      }
      """,
      expandedSource: """
        enum RowAction {
          case scoped(ToggleAction, flag: Bool)
          case mixed(Int, label: Optional<String>)
          case pair(_ name: String, Swift.Optional<Int>)
          case alert(AlertAction?), `type`(value: [Int])
        }

        extension RowAction: ComposableCore.ComposableAction {
          static let describedCases: [ComposableCore.DescribedActionCase] = {
            var cases: [ComposableCore.DescribedActionCase] = []
            cases += ComposableCore.DescribedActionCase.case("scoped", firstValue: (ToggleAction).self, sentBy: .host, summary: nil)
            cases += ComposableCore.DescribedActionCase.case("mixed", firstValue: (Int).self, sentBy: .host, summary: nil)
            cases += ComposableCore.DescribedActionCase.case("pair", firstValue: (String).self, sentBy: .host, summary: nil)
            cases += ComposableCore.DescribedActionCase.case("alert", firstValue: (AlertAction?).self, sentBy: .host, summary: nil)
            cases += ComposableCore.DescribedActionCase.case("type", sentBy: .host, summary: nil)
            return cases
          }()

          static func decodeAction(from reader: inout some ComposableCore.ActionWireReader) throws -> Self {
            switch try reader.nextCaseName(of: Self.self) {
            case "scoped":
              let level = reader.enterCase("scoped")
              return .scoped(try reader.value((ToggleAction).self, key: "_0", level: level), flag: try reader.value((Bool).self, key: "flag", level: level))
            case "mixed":
              let level = reader.enterCase("mixed")
              return .mixed(try reader.value((Int).self, key: "_0", level: level), label: try reader.valueIfPresent((String).self, key: "label", level: level))
            case "pair":
              let level = reader.enterCase("pair")
              return .pair(try reader.value((String).self, key: "_0", level: level), try reader.valueIfPresent((Int).self, key: "_1", level: level))
            case "alert":
              let level = reader.enterCase("alert")
              return .alert(try reader.valueIfPresent((AlertAction).self, key: "_0", level: level))
            case "type":
              let level = reader.enterCase("type")
              return .`type`(value: try reader.value(([Int]).self, key: "value", level: level))
            default:
              throw reader.unknownCase(of: Self.self)
            }
          }

          func encodeAction(to writer: inout some ComposableCore.ActionWireWriter) {
            switch self {
            case .scoped(let value0, let value1):
              writer.appendCase("scoped")
              writer.field(value0, key: "_0")
              writer.field(value1, key: "flag")
            case .mixed(let value0, let value1):
              writer.appendCase("mixed")
              writer.field(value0, key: "_0")
              writer.fieldIfPresent(value1, key: "label")
            case .pair(let value0, let value1):
              writer.appendCase("pair")
              writer.field(value0, key: "_0")
              writer.fieldIfPresent(value1, key: "_1")
            case .alert(let value0):
              writer.appendCase("alert")
              writer.fieldIfPresent(value0, key: "_0")
            case .`type`(let value0):
              writer.appendCase("type")
              writer.field(value0, key: "value")
            }
          }
        }
        """,
      macroSpecs: macros, indentationWidth: .spaces(2))
  }

  /// An enum without cases has no value to write: its switch has no case either.
  func testAnEnumWithoutCasesWritesAnEmptySwitch() {
    assertMacroExpansion(
      """
      @ComposableAction
      enum Never {
      }
      """,
      expandedSource: """
        enum Never {
        }

        extension Never: ComposableCore.ComposableAction {
          static let describedCases: [ComposableCore.DescribedActionCase] = {
            var cases: [ComposableCore.DescribedActionCase] = []

            return cases
          }()

          static func decodeAction(from reader: inout some ComposableCore.ActionWireReader) throws -> Self {
            switch try reader.nextCaseName(of: Self.self) {
            default:
              throw reader.unknownCase(of: Self.self)
            }
          }

          func encodeAction(to writer: inout some ComposableCore.ActionWireWriter) {
            switch self {
            }
          }
        }
        """,
      macroSpecs: macros, indentationWidth: .spaces(2))
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

import ComposableMacroExpansions
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosTestSupport
import XCTest

private struct FieldwiseStateMacro: FieldwiseStateExpansion {}
private struct EncodedMemberMarkerMacro: EncodedMemberMarkerExpansion {}

final class FieldwiseStateMacroTests: XCTestCase {
  /// As the compiler calls them: the struct does not conform yet.
  private let macros: [String: MacroSpec] = [
    "FieldwiseState": MacroSpec(
      type: FieldwiseStateMacro.self, conformances: ["FieldwiseEncodable"]),
    "EncodedMember": MacroSpec(type: EncodedMemberMarkerMacro.self),
    "NotEncoded": MacroSpec(type: EncodedMemberMarkerMacro.self),
  ]

  func testStoredAndMarkedComputedPropertiesAreMembersInTheirOrder() {
    assertMacroExpansion(
      """
      @FieldwiseState
      public struct AppState: Equatable {
        static let limit = 10
        @NotEncoded var scratch: [Int] = []
        public var count: Int = 0
        @EncodedMember public var isPrime: Bool { count == 2 }
        var doubled: Int { count * 2 }
        public var todos: TrackedArray<Todo>, `default`: String? {
          didSet { print("observed, still stored") }
        }
      }
      """,
      expandedSource: """
        public struct AppState: Equatable {
          static let limit = 10
          var scratch: [Int] = []
          public var count: Int = 0
          public var isPrime: Bool { count == 2 }
          var doubled: Int { count * 2 }
          public var todos: TrackedArray<Todo>, `default`: String? {
            didSet { print("observed, still stored") }
          }
        }

        extension AppState: ComposableCore.FieldwiseEncodable {
          public static let encodedFields: [ComposableCore.EncodedField<AppState>] = [
            ComposableCore.EncodedField("count", \\.count),
            ComposableCore.EncodedField("isPrime", \\.isPrime),
            ComposableCore.EncodedField("todos", \\.todos),
            ComposableCore.EncodedField("default", \\.`default`)
          ]

          public struct FieldTracker: ComposableCore.FieldChangeTracker {
            var count: ComposableCore.FieldMemo<Int>
            var isPrime: ComposableCore.FieldMemo<Bool>
            var todos: ComposableCore.FieldMemo<TrackedArray<Todo>>
            var `default`: ComposableCore.FieldMemo<String?>

            public init(_ initial: AppState) {
              self.count = ComposableCore.FieldMemo(initial.count)
              self.isPrime = ComposableCore.FieldMemo(initial.isPrime)
              self.todos = ComposableCore.FieldMemo(initial.todos)
              self.`default` = ComposableCore.FieldMemo(initial.`default`)
            }

            public mutating func reportChanges(
              to new: AppState, into sink: inout some ComposableCore.FieldChangeSink
            ) {
              let value0 = new.count
              if self.count.update(value0) {
                sink.member(0, changedTo: value0)
              }
              let value1 = new.isPrime
              if self.isPrime.update(value1) {
                sink.member(1, changedTo: value1)
              }
              let value2 = new.todos
              if self.todos.update(value2) {
                sink.member(2, changedTo: value2)
              }
              let value3 = new.`default`
              if self.`default`.update(value3) {
                sink.member(3, changedTo: value3)
              }
            }
          }
        }
        """,
      macroSpecs: macros, indentationWidth: .spaces(2))
  }

  func testAGenericStructComputesItsList() {
    assertMacroExpansion(
      """
      @FieldwiseState
      struct Box<Value: Codable & Equatable & Sendable> {
        var value: Value
      }
      """,
      expandedSource: """
        struct Box<Value: Codable & Equatable & Sendable> {
          var value: Value
        }

        extension Box: ComposableCore.FieldwiseEncodable {
          static var encodedFields: [ComposableCore.EncodedField<Box>] {
            [
                ComposableCore.EncodedField("value", \\.value)
              ]
          }

          struct FieldTracker: ComposableCore.FieldChangeTracker {
            var value: ComposableCore.FieldMemo<Value>

            init(_ initial: Box) {
              self.value = ComposableCore.FieldMemo(initial.value)
            }

            mutating func reportChanges(
              to new: Box, into sink: inout some ComposableCore.FieldChangeSink
            ) {
              let value0 = new.value
              if self.value.update(value0) {
                sink.member(0, changedTo: value0)
              }
            }
          }
        }
        """,
      macroSpecs: macros, indentationWidth: .spaces(2))
  }

  func testAMemberWithoutItsTypeAndAnythingButAStructAreErrors() {
    assertMacroExpansion(
      """
      @FieldwiseState
      struct Inferred {
        var count = 0
      }
      @FieldwiseState
      enum NotAStruct {
        @EncodedMember
        case one
      }
      """,
      expandedSource: """
        struct Inferred {
          var count = 0
        }
        enum NotAStruct {
          case one
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message:
            "@FieldwiseState needs the type of each encoded member written out (`var count: Int = 0`)",
          line: 3, column: 7),
        DiagnosticSpec(
          message: "@EncodedMember and @NotEncoded mark a property of a @FieldwiseState struct",
          line: 7, column: 3),
        DiagnosticSpec(message: "@FieldwiseState applies to a struct", line: 5, column: 1),
      ],
      macroSpecs: macros, indentationWidth: .spaces(2))
  }
}

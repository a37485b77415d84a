import ComposableCore
import XCTest

@ComposableAction
private enum RowAction: Equatable {
  /// Flips done.
  case toggled
}

@ComposableAction
private enum Outcome<Value: Codable & Equatable & Sendable>: Equatable {
  /// It arrived.
  case success(Value)
  /// It failed.
  case failure(String)
}

@ComposableAction
private enum ScreenAction: Equatable {
  /// Adds one.
  case incremented
  case undocumented(by: Int)
  /// An action of the row with this id.
  case rows(IdentifiedAction<Int, RowAction>)
  /// The page.
  @SentByEffect
  case page(Outcome<[Int]>)
  /// The row to show first.
  case firstRow(RowAction, Int)
  /// A count and a row, the count first: no child path.
  case labelled(count: Int, RowAction)
}

@ComposableAction
private enum Child: Equatable {
  /// Done.
  @SentByEffect
  case done
}

@ComposableAction
private enum Parent: Equatable {
  case child(Child)
}

final class DescribedActionCaseTests: XCTestCase {
  func testTheMacroListsEveryCaseWithChildCasesUnderTheirParentsName() {
    XCTAssertEqual(
      ScreenAction.describedCases,
      [
        DescribedActionCase("incremented", sentBy: .host, summary: "Adds one."),
        DescribedActionCase("undocumented", sentBy: .host, summary: nil),
        // The element is sent and described as the case that holds it says.
        DescribedActionCase(
          "rows.element", sentBy: .host, summary: "An action of the row with this id."),
        // A parent sent by effects makes its children so; both summaries are kept.
        DescribedActionCase("page.success", sentBy: .effect, summary: "The page. It arrived."),
        DescribedActionCase("page.failure", sentBy: .effect, summary: "The page. It failed."),
        DescribedActionCase(
          "firstRow.toggled", sentBy: .host, summary: "The row to show first. Flips done."),
        DescribedActionCase(
          "labelled", sentBy: .host, summary: "A count and a row, the count first: no child path."),
      ])
  }

  func testAChildSentByEffectsStaysSoUnderAParentAHostSends() {
    XCTAssertEqual(
      Parent.describedCases, [DescribedActionCase("child.done", sentBy: .effect, summary: "Done.")])
  }

  func testAnEnumConformingWithoutTheMacroDescribesNothing() {
    enum Plain: ComposableAction { case tapped }
    XCTAssertEqual(Plain.describedCases, [])
  }
}

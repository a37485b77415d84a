import ComposableRuntime
import TodoListStore
import XCTest

/// The definition as the process reads it.
final class TodoListStoreTests: XCTestCase {
  /// The definition describes every case of the action type, with its fields.
  func testTheDescriptionMatchesTheActionType() {
    XCTAssertEqual(TodoListStore.actionDescriptionProblems, [])
  }
}

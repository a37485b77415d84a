import ComposableRuntime
import WebSocketDefinition
import XCTest

/// The definition as the process reads it.
final class WebSocketStoreTests: XCTestCase {
  /// The store's description lists every case of its action type, with the case's fields.
  func testTheDescriptionMatchesTheActionType() {
    XCTAssertEqual(WebSocketStore.actionDescriptionProblems, [])
  }
}

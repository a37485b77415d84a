import ComposableRuntime
import VotesDefinition
import XCTest

/// The definition as the process reads it.
final class VotesStoreTests: XCTestCase {
  /// The store's description lists every case of its action type, with the case's fields.
  func testTheDescriptionMatchesTheActionType() {
    XCTAssertEqual(VotesStore.actionDescriptionProblems, [])
  }
}

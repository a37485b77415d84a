import ComposableRuntime
import PrimesDefinition
import XCTest

/// The definition as the process reads it.
final class PrimesStoreTests: XCTestCase {
  /// The store's description lists every case of its action type, with the case's fields.
  func testTheDescriptionMatchesTheActionType() {
    XCTAssertEqual(PrimesStore.actionDescriptionProblems, [])
  }
}

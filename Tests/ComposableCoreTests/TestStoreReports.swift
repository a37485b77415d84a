import ComposableCore
import ComposableTestSupport

/// What a test store reported: its failures, and the assertions it skipped. TCA's own tests
/// catch these with `XCTExpectFailure`, which XCTest on Linux does not have; these tests assert
/// the messages whole instead.
final class TestStoreReports {
  var failures: [String] = []
  var skipped: [String] = []

  /// Collects what `store` reports from now on, instead of failing the test.
  func collect<State, Action>(_ store: TestStore<State, Action>) {
    store.reportFailure = { [unowned self] message, _, _ in failures.append(message) }
    store.reportSkippedAssertion = { [unowned self] message, _, _ in skipped.append(message) }
  }
}

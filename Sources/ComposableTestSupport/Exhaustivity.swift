/// How much of what a store does a ``TestStore`` test must assert, as TCA's `Exhaustivity`.
///
/// Exhaustive (`.on`, the default): every state change, every action an effect sends, and every
/// effect still running at the end. Non-exhaustive (`.off`): a test asserts what it cares
/// about (an integration test of a large feature, say) and the rest passes:
///
/// - a state closure is applied to the state the step left, so it checks only what it sets;
/// - received actions not asserted are skipped, by `receive` (those before the one it names)
///   and `send`, and are no failure at the end;
/// - effects still running at the end are cancelled without a failure.
///
/// `.off(showSkippedAssertions: true)` reports each assertion so skipped through
/// ``TestStore/reportSkippedAssertion``, what TCA shows as an expected failure.
/// A wrong assertion is a failure in every mode.
public enum Exhaustivity: Equatable, Sendable {
  /// Every state change, received action and effect still running must be asserted.
  case on
  /// Only what the test asserts is checked; with `showSkippedAssertions`, each assertion
  /// skipped is reported.
  case off(showSkippedAssertions: Bool)

  /// Non-exhaustive, and silent about what it skips.
  public static let off = Self.off(showSkippedAssertions: false)
}

extension TestStore {
  /// Runs `operation` with ``exhaustivity`` set to `exhaustivity`, then sets it back: a part
  /// of a test that asserts more, or less, than the rest.
  ///
  /// ```swift
  /// store.withExhaustivity(.off) {
  ///   store.send(.refresh)
  ///   store.receive(\.loaded) { $0.isLoading = false }
  /// }
  /// ```
  public func withExhaustivity<R>(_ exhaustivity: Exhaustivity, operation: () throws -> R)
    rethrows -> R
  {
    let previous = self.exhaustivity
    defer { self.exhaustivity = previous }
    self.exhaustivity = exhaustivity
    return try operation()
  }
}

/// A request a reducer could not honour and ignored, changing nothing: TCA's runtime warning,
/// told to the store's ``Store/didReportIssue`` instead of stopping the program.
///
/// A reducer of the core reports one by returning it as part of its effect, so the store hears
/// it in reduction order, tied to the action that caused it: `StoreHost` writes it as an
/// `error` line, `TestStore` fails the test.
///
/// ```swift
/// store.didReportIssue = { issue, reduced in
///   print(issue.kind, issue.message, "while reducing", reduced.action)
/// }
/// ```
public struct ReducerIssue: Sendable, Equatable, CustomStringConvertible {
  /// What kind of request could not be honoured.
  public enum Kind: Sendable, Equatable {
    /// `forEach` got an action for an element its collection does not hold (removed, or never
    /// there).
    case unknownElement
  }

  /// Which kind this issue is.
  public let kind: Kind
  /// One line for people: what was asked, and why it could not be done.
  public let message: String

  init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }
}

extension Effect {
  /// Tells the store `issue` as it starts the effect; nothing runs.
  static func issue(_ issue: ReducerIssue) -> Self { Self(.issue(issue)) }
}

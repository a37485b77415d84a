/// Embeds a child action into a parent enum case and extracts it back: the action half of
/// `Scope`, like swift-case-paths' `AnyCasePath`, written by hand so the core needs no macros.
///
/// ```swift
/// extension AppAction {
///   enum Cases {
///     static let counter = CasePath(embed: AppAction.counter) {
///       guard case .counter(let action) = $0 else { return nil }
///       return action
///     }
///   }
/// }
/// ```
public struct CasePath<Root, Value>: Sendable {
  /// Wraps a child action in the parent's case.
  public let embed: @Sendable (Value) -> Root
  /// The child action, when the parent action is of this case; nil otherwise.
  public let extract: @Sendable (Root) -> Value?

  /// A case path from the case's constructor and a function that matches the case.
  public init(
    embed: @escaping @Sendable (Value) -> Root, extract: @escaping @Sendable (Root) -> Value?
  ) {
    self.embed = embed
    self.extract = extract
  }
}

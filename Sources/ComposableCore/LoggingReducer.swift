extension Reducer {
  /// Reports every action and the state it produced, PrimeTime's `logging(_:)`.
  ///
  /// The description is built only when `logger.isEnabled`, so a logging reducer left in a
  /// production composition costs one branch per action.
  public func logging(_ logger: ActionLogger) -> LoggingReducer<Self> {
    LoggingReducer(base: self, logger: logger)
  }
}

/// Where a logging reducer writes; the live one goes to stderr, tests collect lines.
public struct ActionLogger: Sendable {
  /// Whether actions are logged at all: when false, no description is built.
  public var isEnabled: Bool
  /// Writes one logged line.
  public var log: @Sendable (String) -> Void

  /// A logger that writes through `log` when `isEnabled`.
  public init(isEnabled: Bool, log: @escaping @Sendable (String) -> Void) {
    self.isEnabled = isEnabled
    self.log = log
  }

  /// A logger that logs nothing.
  public static let disabled = ActionLogger(isEnabled: false) { _ in }
}

/// The reducer `logging(_:)` builds.
public struct LoggingReducer<Base: Reducer>: Reducer {
  let base: Base
  let logger: ActionLogger

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let effect = base.reduce(into: &state, action: action)
    if logger.isEnabled {
      logger.log("action: \(action)\nstate: \(state)")
    }
    return effect
  }
}

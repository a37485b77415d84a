/// The effect a task works for, while its store traces effects (``Store/didChangeEffect``) or
/// labels them (``Store/labelsEffects``): a task-local value, so that a clock the effect sleeps
/// on can tell the store what it waits for, and a dependency can tell which action's effect
/// asks.
///
/// ```swift
/// // in a clock's sleep(until:)
/// TracedEffect.current?.willSleep(until: deadline.offset)
/// // in a dependency that records its answers
/// let askedBy = TracedEffect.current?.cause
/// ```
public struct TracedEffect: Sendable {
  /// The effect the current task works for; nil outside a traced or labelled effect.
  @TaskLocal public static var current: TracedEffect?

  /// The number of the reduction that started the effect (a host's `seq`), if it had one.
  public let cause: Int?
  /// Tells the store the effect waits until this time since the clock's start.
  public let willSleep: @Sendable (_ until: Duration) -> Void

  /// An effect started by reduction `cause`, whose sleeps `willSleep` reports.
  public init(cause: Int? = nil, willSleep: @escaping @Sendable (_ until: Duration) -> Void) {
    self.cause = cause
    self.willSleep = willSleep
  }
}

/// The effect a task works for, while its store traces effects (``Store/didChangeEffect``): a
/// task-local value, so that a clock the effect sleeps on can tell the store what it waits for.
///
/// ```swift
/// // in a clock's sleep(until:)
/// TracedEffect.current?.willSleep(until: deadline.offset)
/// ```
public struct TracedEffect: Sendable {
  @TaskLocal public static var current: TracedEffect?

  /// Tells the store the effect waits until this time since the clock's start.
  public let willSleep: @Sendable (_ until: Duration) -> Void

  public init(willSleep: @escaping @Sendable (_ until: Duration) -> Void) {
    self.willSleep = willSleep
  }
}

import Locks

/// A value a test shares with the `@Sendable` dependency closures it hands a reducer: what they
/// were called with, or what they should answer next.
public final class LockedBox<Value: Sendable>: @unchecked Sendable {
  private let lock = Lock()
  private var stored: Value

  /// A box holding `value`.
  public init(_ value: Value) { stored = value }

  /// The value now.
  public var value: Value { lock.withLock { stored } }
  /// Replaces the value.
  public func set(_ value: Value) { lock.withLock { stored = value } }

  /// Changes the value in place and returns what `body` returns, under the lock.
  @discardableResult
  public func withValue<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }

  /// Appends `element` to the array the box holds: a dependency records what it was called
  /// with.
  public func append<Element>(_ element: Element) where Value == [Element] {
    lock.withLock { stored.append(element) }
  }
}

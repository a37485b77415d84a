import Locks

/// A value a test shares with the `@Sendable` dependency closures it hands a reducer: what they
/// were called with, or what they should answer next.
public final class LockedBox<Value: Sendable>: @unchecked Sendable {
  private let lock = Lock()
  private var stored: Value

  public init(_ value: Value) { stored = value }

  public var value: Value { lock.withLock { stored } }
  public func set(_ value: Value) { lock.withLock { stored = value } }

  /// Changes the value in place and returns what `body` returns, under the lock.
  @discardableResult
  public func withValue<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }

  public func append<Element>(_ element: Element) where Value == [Element] {
    lock.withLock { stored.append(element) }
  }
}

import Locks

/// A clock whose time moves only when told to, so timers, debounces and throttles run the same
/// way every time: in tests, and in the product's deterministic mode.
///
/// ```swift
/// let clock = VirtualClock()
/// // … an effect sleeps for 3 s …
/// clock.advance(by: .seconds(3)) { executor.runUntilIdle() }
/// ```
/// `advance` wakes sleepers in deadline order (ties in the order they went to sleep) and calls
/// `settle` after each wake-up, so the work a wake-up starts, including new sleeps that fall
/// inside the same advance, happens before the next deadline is considered.
public final class VirtualClock: Clock, @unchecked Sendable {
  /// A point in the clock's time: the time since the clock was created.
  public struct Instant: InstantProtocol, Hashable, Sendable {
    /// Time since the clock was created.
    public var offset: Duration

    /// The instant `offset` after the clock's start.
    public init(offset: Duration) { self.offset = offset }
    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }
    /// The time from this instant to `other`.
    public func duration(to other: Self) -> Duration { other.offset - offset }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    let id: UInt64
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private let lock = Lock()
  private var current = Instant(offset: .zero)
  private var sleepers: [Sleeper] = []
  private var nextID: UInt64 = 0
  private var cancelledBeforeSleeping: Set<UInt64> = []

  /// A clock at time zero, which moves only with `advance`.
  public init() {}

  /// The current virtual time.
  public var now: Instant { lock.withLock { current } }
  /// Zero: virtual time has no granularity.
  public var minimumResolution: Duration { .zero }

  /// Suspends until `advance` moves the clock to `deadline` or past it; throws
  /// `CancellationError` when the task is cancelled first. `tolerance` is ignored.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    TracedEffect.current?.willSleep(deadline.offset)
    let id = lock.withLock {
      defer { nextID += 1 }
      return nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let outcome: Result<Void, any Error>? = lock.withLock {
          if cancelledBeforeSleeping.remove(id) != nil { return .failure(CancellationError()) }
          if deadline <= current { return .success(()) }
          sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let sleeper: Sleeper? = lock.withLock {
        guard let index = sleepers.firstIndex(where: { $0.id == id }) else {
          cancelledBeforeSleeping.insert(id)
          return nil
        }
        return sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
    lock.withLock { _ = cancelledBeforeSleeping.remove(id) }
  }

  /// Moves time forward by `duration`, waking sleepers in deadline order.
  public func advance(by duration: Duration, settle: () -> Void) {
    advance(to: now.advanced(by: duration), settle: settle)
  }

  /// Moves time forward to `target` (never backwards), waking sleepers in deadline order and
  /// calling `settle` after each group of wake-ups that share a deadline.
  public func advance(to target: Instant, settle: () -> Void) {
    while wakeNextSleepers(notAfter: target) { settle() }
    move(to: target)
    settle()
  }

  /// The step of an advance whose settling is asynchronous: moves time to the earliest
  /// deadline if it is not after `target`, and wakes every sleeper due then (in the order they
  /// went to sleep). Returns false, changing nothing, when no deadline is that early.
  public func wakeNextSleepers(notAfter target: Instant) -> Bool {
    let woken: [Sleeper] = lock.withLock {
      guard let deadline = sleepers.map(\.deadline).min(), deadline <= target else { return [] }
      current = max(current, deadline)
      let woken = sleepers.filter { $0.deadline == deadline }
      sleepers.removeAll { $0.deadline == deadline }
      return woken
    }
    for sleeper in woken { sleeper.continuation.resume() }
    return !woken.isEmpty
  }

  /// Moves time to `target` if it is later, without waking anyone: call it once
  /// ``wakeNextSleepers(notAfter:)`` returned false.
  public func move(to target: Instant) {
    lock.withLock { current = max(current, target) }
  }
}

/// Durations as the whole milliseconds the wire protocol and scenarios count in.
extension Duration {
  /// The duration in whole milliseconds, toward zero or to the nearest, saturating at the
  /// bounds of `Int`: a virtual clock advanced often enough holds more milliseconds than `Int`
  /// does, and converting through a `Double` would trap there.
  public func wholeMilliseconds(rounded: Bool = false) -> Int {
    let (seconds, attoseconds) = components
    let perMillisecond: Int64 = 1_000_000_000_000_000
    let half = rounded ? perMillisecond / 2 : 0
    let fraction = (attoseconds < 0 ? attoseconds - half : attoseconds + half) / perMillisecond
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    let (sum, overflow2) = scaled.addingReportingOverflow(fraction)
    if overflow || overflow2 { return seconds < 0 ? .min : .max }
    return Int(sum)
  }
}

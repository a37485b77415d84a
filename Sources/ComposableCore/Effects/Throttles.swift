/// What each throttle of a store remembers between deliveries: when it last delivered, on its
/// own clock, and the action it holds back until its interval ends.
///
/// Type-erased (an instant of any clock, an action of any type), so that whether a store's
/// throttles remember anything is asked without the store's types.
struct Throttles {
  private var lastDelivery: [EffectID: any Sendable] = [:]
  private var held: [EffectID: any Sendable] = [:]

  var isEmpty: Bool { lastDelivery.isEmpty }

  /// True to deliver `action` at once: the throttle's interval has passed since its last
  /// delivery. Otherwise the action is held, in place of the one held unless the throttle
  /// keeps the first.
  mutating func admit<Action: Sendable, C: Clock<Duration>>(
    _ action: Action, _ throttle: ThrottleSettings, clock: C
  ) -> Bool {
    let now = clock.now
    if let last = lastDelivery[throttle.id] as? C.Instant,
      last.duration(to: now) < throttle.interval
    {
      if throttle.latest || held[throttle.id] == nil { held[throttle.id] = action }
      return false
    }
    delivered(throttle, at: now)
    return true
  }

  /// When the action the throttle holds is due, if it holds one.
  func release<C: Clock<Duration>>(_ throttle: ThrottleSettings, clock: C) -> C.Instant? {
    guard held[throttle.id] != nil, let last = lastDelivery[throttle.id] as? C.Instant else {
      return nil
    }
    return last.advanced(by: throttle.interval)
  }

  /// Hands over the action held, delivered at `now`.
  mutating func takeHeld<Action>(
    _ throttle: ThrottleSettings, as: Action.Type, at now: some Sendable
  ) -> Action? {
    guard let action = held[throttle.id] as? Action else { return nil }
    delivered(throttle, at: now)
    return action
  }

  private mutating func delivered(_ throttle: ThrottleSettings, at instant: some Sendable) {
    lastDelivery[throttle.id] = instant
    held[throttle.id] = nil
  }
}

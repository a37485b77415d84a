extension Effect {
  /// Delays the effect until `duration` passed without another start under the same id: each
  /// new start cancels the waiting one (search-as-you-type).
  ///
  /// ```swift
  /// case .queryChanged(let query):
  ///   state.query = query
  ///   return .run { send in await send(.results(try await search(query))) }
  ///     .debounce(id: CancelID.search, for: .milliseconds(300), clock: clock)
  /// ```
  public func debounce(
    id: some Hashable & Sendable, for duration: Duration, clock: any Clock<Duration>
  ) -> Self {
    if isNone { return self }
    return Self.concatenate(.run { _ in try await clock.sleep(for: duration) }, self)
      .cancellable(id: id, cancelInFlight: true)
  }

  /// Lets at most one action through per `interval` for this id.
  ///
  /// The first action passes at once. An action within `interval` of the last delivered one is
  /// held until the interval ends and then delivered: the most recent one with `latest: true`,
  /// the first one held with `latest: false`. Starting the effect again while one is held
  /// cancels the earlier start, as in TCA.
  ///
  /// ```swift
  /// case .task(.didFinish) where state.runningTasks == 0:
  ///   return .send(.isLoading(false))
  ///     .throttle(id: CancelID.loading, for: .milliseconds(200), clock: clock, latest: true)
  /// ```
  public func throttle(
    id: some Hashable & Sendable, for interval: Duration, clock: any Clock<Duration>,
    latest: Bool
  ) -> Self {
    if isNone { return self }
    let id = EffectID(id)
    return Self(
      .throttle(ThrottleSettings(id: id, interval: interval, clock: clock, latest: latest), self)
    )
    .cancellable(id: ThrottleCancelID(id: id), cancelInFlight: true)
  }
}

/// What a throttled effect needs to decide when to deliver; the store keeps the timing. Not
/// nested in `Effect`, so `map` hands it on unchanged whatever the action type.
struct ThrottleSettings: Sendable {
  let id: EffectID
  let interval: Duration
  let clock: any Clock<Duration>
  let latest: Bool

  func withID(_ id: EffectID) -> Self {
    ThrottleSettings(id: id, interval: interval, clock: clock, latest: latest)
  }
}

/// Keeps a throttle's own cancellation apart from user ids equal to the throttle's id.
struct ThrottleCancelID: Hashable, Sendable {
  let id: EffectID
}

/// A repeating timer on any clock counted in `Duration`.
extension Clock where Duration == Swift.Duration {
  /// Ticks every `interval`, measured from the start, so a slow consumer does not make the
  /// ticks drift. Ends when the task is cancelled.
  ///
  /// ```swift
  /// .run { send in
  ///   for await _ in clock.timer(interval: .seconds(3)) { await send(.timerTicked) }
  /// }
  /// .cancellable(id: CancelID.timer, cancelInFlight: true)
  /// ```
  public func timer(interval: Duration) -> ClockTimer<Self> {
    ClockTimer(clock: self, interval: interval)
  }
}

/// The ticks of `Clock.timer(interval:)`: each element is the instant the tick was due.
public struct ClockTimer<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration {
  public typealias Element = C.Instant
  let clock: C
  let interval: Duration

  public struct AsyncIterator: AsyncIteratorProtocol {
    let clock: C
    let interval: Duration
    var deadline: C.Instant?

    public mutating func next() async -> C.Instant? {
      let due = (deadline ?? clock.now).advanced(by: interval)
      do {
        try await clock.sleep(until: due, tolerance: nil)
      } catch {
        return nil
      }
      deadline = due
      return due
    }
  }

  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(clock: clock, interval: interval, deadline: nil)
  }
}

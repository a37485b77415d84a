import ComposableRuntime

extension Reducer where State == PrimesState, Action == PrimesAction {
  /// Records favourites added and removed in the activity feed, PrimeTime's `activityFeed`
  /// higher-order reducer: the features it wraps know nothing about the feed.
  func activityFeed(now: @escaping @Sendable () -> Int) -> ActivityFeed<Self> {
    ActivityFeed(base: self, now: now)
  }
}

struct ActivityFeed<Base: Reducer>: Reducer
where Base.State == PrimesState, Base.Action == PrimesAction {
  let base: Base
  let now: @Sendable () -> Int

  func reduce(into state: inout PrimesState, action: PrimesAction) -> Effect<PrimesAction> {
    switch action {
    case .primeModal(.saveFavoritePrimeTapped), .primeModal(.removeFavoritePrimeTapped),
      .favoritePrimes(.deleteFavoritePrimes):
      let before = state.favoritePrimes
      let effect = base.reduce(into: &state, action: action)
      record(from: before, to: state.favoritePrimes, in: &state.activityFeed)
      return effect
    default:
      return base.reduce(into: &state, action: action)
    }
  }

  /// Logs what actually changed: a save of a non-prime or a stale index adds nothing. Sets
  /// make it linear in the favourites: looking each one up in the other list was quadratic.
  private func record(from before: [Int], to after: [Int], in feed: inout TrackedArray<Activity>) {
    guard before != after else { return }
    let timestamp = now()
    let (beforeSet, afterSet) = (Set(before), Set(after))
    for prime in before where !afterSet.contains(prime) {
      feed.append(Activity(timestamp: timestamp, type: .removedFavoritePrime, prime: prime))
    }
    for prime in after where !beforeSet.contains(prime) {
      feed.append(Activity(timestamp: timestamp, type: .addedFavoritePrime, prime: prime))
    }
  }
}

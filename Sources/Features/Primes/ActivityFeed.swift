import ComposableCore

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
    let before = state.favoritePrimes
    let effect = base.reduce(into: &state, action: action)
    switch action {
    case .primeModal(.saveFavoritePrimeTapped), .primeModal(.removeFavoritePrimeTapped),
      .favoritePrimes(.deleteFavoritePrimes):
      // Log what actually changed: a save of a non-prime or a stale index adds nothing.
      let after = state.favoritePrimes
      guard before != after else { break }
      let timestamp = now()
      for prime in before where !after.contains(prime) {
        state.activityFeed.append(
          Activity(timestamp: timestamp, type: .removedFavoritePrime, prime: prime))
      }
      for prime in after where !before.contains(prime) {
        state.activityFeed.append(
          Activity(timestamp: timestamp, type: .addedFavoritePrime, prime: prime))
      }
    default:
      break
    }
    return effect
  }
}

import ComposableDependencies

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
    // The primes the action may add to or remove from the favourites, in the order their
    // activities are logged.
    let candidates: [Int]
    switch action {
    case .primeModal(.saveFavoritePrimeTapped), .primeModal(.removeFavoritePrimeTapped):
      candidates = [state.count]
    case .favoritePrimes(.deleteFavoritePrimes(let indices)):
      let favorites = state.favoritePrimes
      candidates = FavoritePrimesReducer.deleted(indices, from: favorites).map { favorites[$0] }
    default:
      return base.reduce(into: &state, action: action)
    }
    let wereFavorite = candidates.map(state.favoritePrimes.contains)
    let effect = base.reduce(into: &state, action: action)
    record(candidates, wereFavorite: wereFavorite, in: &state)
    return effect
  }

  /// Logs what actually changed, one look-up per candidate: a save of a non-prime or of a
  /// favourite adds nothing, nor does a stale index.
  private func record(_ candidates: [Int], wereFavorite: [Bool], in state: inout PrimesState) {
    var timestamp: Int?
    for (prime, wasFavorite) in zip(candidates, wereFavorite)
    where state.favoritePrimes.contains(prime) != wasFavorite {
      let now = timestamp ?? self.now()
      timestamp = now
      state.activityFeed.append(
        Activity(
          timestamp: now, type: wasFavorite ? .removedFavoritePrime : .addedFavoritePrime,
          prime: prime))
    }
  }
}

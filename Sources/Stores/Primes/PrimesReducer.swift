import ComposableDependencies

/// The PrimeTime app, composed as in the original: three features pulled back into the app
/// state, wrapped by the activity feed and by logging.
public struct PrimesReducer: Reducer {
  let dependencies: PrimesDependencies

  public init(dependencies: PrimesDependencies) {
    self.dependencies = dependencies
  }

  public var body: some Reducer<PrimesState, PrimesAction> {
    CombineReducers {
      Scope(state: \.counter, action: PrimesAction.Cases.counter) {
        CounterReducer(nthPrime: dependencies.nthPrime)
      }
      // The modal's and the favourites' states are views that share the favourites; reduced
      // through their `_modify` accessors rather than a key path, a change to the favourites
      // copies none of them (see `PrimesState`).
      Reduce {
        [favorites = FavoritePrimesReducer(storage: dependencies.favoritePrimes)] state, action in
        switch action {
        case .primeModal(let action):
          PrimeModalReducer().reduce(into: &state.primeModal, action: action)
            .map(PrimesAction.primeModal)
        case .favoritePrimes(let action):
          favorites.reduce(into: &state.favorites, action: action).map(PrimesAction.favoritePrimes)
        default:
          .none
        }
      }
    }
    .activityFeed(now: dependencies.now)
    .logging(dependencies.logger)
  }
}

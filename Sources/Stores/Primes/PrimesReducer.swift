import ComposableRuntime

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
      Scope(state: \.primeModal, action: PrimesAction.Cases.primeModal) {
        PrimeModalReducer()
      }
      Scope(state: \.favorites, action: PrimesAction.Cases.favoritePrimes) {
        FavoritePrimesReducer(storage: dependencies.favoritePrimes)
      }
    }
    .activityFeed(now: dependencies.now)
    .logging(dependencies.logger)
  }
}

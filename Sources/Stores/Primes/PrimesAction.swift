import ComposableDependencies

/// Every action of the PrimeTime app; on the wire `counter.incrTapped`,
/// `primeModal.saveFavoritePrimeTapped`, `favoritePrimes.deleteFavoritePrimes`, …
@ComposableAction
public enum PrimesAction: Equatable {
  case counter(CounterAction)
  case primeModal(PrimeModalAction)
  case favoritePrimes(FavoritePrimesAction)

  enum Cases {
    static let counter = CasePath<PrimesAction, CounterAction>(embed: PrimesAction.counter) {
      guard case .counter(let action) = $0 else { return nil }
      return action
    }
    static let primeModal = CasePath<PrimesAction, PrimeModalAction>(
      embed: PrimesAction.primeModal
    ) {
      guard case .primeModal(let action) = $0 else { return nil }
      return action
    }
    static let favoritePrimes = CasePath<PrimesAction, FavoritePrimesAction>(
      embed: PrimesAction.favoritePrimes
    ) {
      guard case .favoritePrimes(let action) = $0 else { return nil }
      return action
    }
  }
}

import ComposableDependencies

/// The prime modal: whether the current count is prime, and a button to add it to or remove it
/// from the favourites.
@ComposableAction
public enum PrimeModalAction: Equatable {
  /// Adds count to the favourites if it is a prime and not one already.
  case saveFavoritePrimeTapped
  /// Removes count from the favourites.
  case removeFavoritePrimeTapped
}

public struct PrimeModalState: Equatable, Sendable {
  public var count: Int
  public var favoritePrimes: TrackedOrderedSet<Int>
}

public struct PrimeModalReducer: Reducer {
  public init() {}

  /// Only a prime can become a favourite, and only once; the screen offers the buttons only
  /// then, and a host that sends them anyway changes nothing.
  public func reduce(into state: inout PrimeModalState, action: PrimeModalAction) -> Effect<
    PrimeModalAction
  > {
    switch action {
    case .saveFavoritePrimeTapped:
      if Primality.isPrime(state.count) { state.favoritePrimes.append(state.count) }
      return .none

    case .removeFavoritePrimeTapped:
      state.favoritePrimes.remove(state.count)
      return .none
    }
  }
}

import ComposableDependencies

/// The whole PrimeTime app: the counter, its prime modal, the favourites and the activity feed.
///
/// Its encoded members are, in this order, the stored fields, then what a screen derives from
/// them, so a host renders the state without reimplementing primality.
@FieldwiseState
public struct PrimesState: Equatable, Sendable {
  /// The counter's state is stored whole, as its `Scope` reaches it on every tap: a computed
  /// view through a key path costs a getter, a setter and a write-back buffer per action. The
  /// prime modal and the favourites, which share fields, see computed views. Its fields are
  /// encoded as members of the app state.
  @NotEncoded var counter: CounterState
  @EncodedMember public var count: Int {
    get { counter.count }
    set { counter.count = newValue }
  }
  /// An ordered set: `isFavorite`, read on every counter tap, finds the count without
  /// searching, and adding or removing one writes a patch of that one.
  public var favoritePrimes: TrackedOrderedSet<Int>
  /// Grows by one entry per favourite saved or removed: a `TrackedArray`, so that recording one
  /// costs the same however long the feed is.
  public var activityFeed: TrackedArray<Activity>
  @EncodedMember public var alertNthPrime: PrimeAlert? {
    get { counter.alertNthPrime }
    set { counter.alertNthPrime = newValue }
  }
  @EncodedMember public var alertNthPrimeFailure: NthPrimeFailure? {
    get { counter.alertNthPrimeFailure }
    set { counter.alertNthPrimeFailure = newValue }
  }
  @EncodedMember public var nthPrimeRequest: Int? {
    get { counter.nthPrimeRequest }
    set { counter.nthPrimeRequest = newValue }
  }
  /// The button stays disabled while its request is in flight.
  @EncodedMember public var isNthPrimeButtonDisabled: Bool { nthPrimeRequest != nil }
  /// Whether the prime modal would offer the favourite buttons.
  @EncodedMember public var isPrime: Bool { Primality.isPrime(count) }
  @EncodedMember public var isFavorite: Bool { favoritePrimes.contains(count) }
  public var storageError: StorageError?

  public init(
    count: Int = 0, favoritePrimes: TrackedOrderedSet<Int> = [],
    activityFeed: TrackedArray<Activity> = [],
    alertNthPrime: PrimeAlert? = nil, alertNthPrimeFailure: NthPrimeFailure? = nil,
    nthPrimeRequest: Int? = nil, storageError: StorageError? = nil
  ) {
    self.counter = CounterState(
      count: count, nthPrimeRequest: nthPrimeRequest, alertNthPrime: alertNthPrime,
      alertNthPrimeFailure: alertNthPrimeFailure)
    self.favoritePrimes = favoritePrimes
    self.activityFeed = activityFeed
    self.storageError = storageError
  }

  // The other child features' views of the app state. Each holds the favourites, which
  // their reducers change: `_modify` moves the favourites into the view and back, so that a
  // change does not copy them (a get then a set, as a key path does, would hold them twice
  // while the child changes them). `PrimesReducer` reduces through these accessors directly.

  var primeModal: PrimeModalState {
    get { PrimeModalState(count: count, favoritePrimes: favoritePrimes) }
    set {
      count = newValue.count
      favoritePrimes = newValue.favoritePrimes
    }
    _modify {
      var view = PrimeModalState(count: count, favoritePrimes: takeFavoritePrimes())
      defer {
        count = view.count
        favoritePrimes = view.favoritePrimes
      }
      yield &view
    }
  }

  var favorites: FavoritePrimesState {
    get { FavoritePrimesState(favoritePrimes: favoritePrimes, storageError: storageError) }
    set {
      favoritePrimes = newValue.favoritePrimes
      storageError = newValue.storageError
    }
    _modify {
      var view = FavoritePrimesState(
        favoritePrimes: takeFavoritePrimes(), storageError: storageError)
      defer {
        favoritePrimes = view.favoritePrimes
        storageError = view.storageError
      }
      yield &view
    }
  }

  private mutating func takeFavoritePrimes() -> TrackedOrderedSet<Int> {
    defer { favoritePrimes = [] }
    return favoritePrimes
  }
}

/// One entry of the activity feed.
public struct Activity: Equatable, Codable, Sendable {
  public enum Kind: String, Codable, CaseIterable, Sendable {
    case addedFavoritePrime
    case removedFavoritePrime
  }

  /// Milliseconds since the Unix epoch.
  public var timestamp: Int
  public var type: Kind
  public var prime: Int

  public init(timestamp: Int, type: Kind, prime: Int) {
    self.timestamp = timestamp
    self.type = type
    self.prime = prime
  }
}

extension PrimesState: Decodable {
  enum CodingKeys: String, CodingKey {
    case count, favoritePrimes, activityFeed, alertNthPrime, alertNthPrimeFailure
    case nthPrimeRequest, storageError
  }

  /// Decodes the stored fields; the derived ones are recomputed.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      count: try container.decode(Int.self, forKey: .count),
      favoritePrimes: try container.decode(
        TrackedOrderedSet<Int>.self, forKey: .favoritePrimes),
      activityFeed: try container.decode(TrackedArray<Activity>.self, forKey: .activityFeed),
      alertNthPrime: try container.decodeIfPresent(PrimeAlert.self, forKey: .alertNthPrime),
      alertNthPrimeFailure: try container.decodeIfPresent(
        NthPrimeFailure.self, forKey: .alertNthPrimeFailure),
      nthPrimeRequest: try container.decodeIfPresent(Int.self, forKey: .nthPrimeRequest),
      storageError: try container.decodeIfPresent(StorageError.self, forKey: .storageError))
  }
}

import ComposableDependencies

/// Everything the primes feature needs from the world, as values of closures: the live ones
/// compute on libuv's thread pool and use real files; tests pass their own.
public struct PrimesDependencies: Sendable {
  public var nthPrime: NthPrimeClient
  public var favoritePrimes: FavoritePrimesStorage
  /// Milliseconds since the Unix epoch, for activity-feed timestamps.
  public var now: @Sendable () -> Int
  public var logger: ActionLogger

  public init(
    nthPrime: NthPrimeClient, favoritePrimes: FavoritePrimesStorage,
    now: @escaping @Sendable () -> Int, logger: ActionLogger = .disabled
  ) {
    self.nthPrime = nthPrime
    self.favoritePrimes = favoritePrimes
    self.now = now
    self.logger = logger
  }
}

/// Answers "what is the nth prime?", PrimeTime's Wolfram|Alpha request.
public struct NthPrimeClient: Sendable {
  /// The largest n answered, if the service has a limit; it makes the alert say why.
  public var largestN: Int?
  /// `nil` when there is no answer (n < 1, n too large, or the service had none).
  public var nthPrime: @Sendable (Int) async throws -> Int?

  public init(largestN: Int?, nthPrime: @escaping @Sendable (Int) async throws -> Int?) {
    self.largestN = largestN
    self.nthPrime = nthPrime
  }
}

/// Keeps the favourite primes between runs.
public struct FavoritePrimesStorage: Sendable {
  public var load: @Sendable () async throws -> [Int]
  public var save: @Sendable ([Int]) async throws -> Void

  public init(
    load: @escaping @Sendable () async throws -> [Int],
    save: @escaping @Sendable ([Int]) async throws -> Void
  ) {
    self.load = load
    self.save = save
  }
}

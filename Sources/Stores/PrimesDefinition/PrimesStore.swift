import ComposableRuntime
import PrimesFeature

/// The `primes` store: PrimeTime, with the nth prime from libprimesieve on the thread pool (or
/// Wolfram|Alpha), and the favourites saved to the data directory.
public enum PrimesStore: StoreDefinition {
  public struct Options: StoreOptions {
    public var maxNthPrime = 1_000_000_000
    public var wolframAppID: String?
    public var wolframURL = "https://api.wolframalpha.com"

    public init() {}

    public static let arguments: [StoreOption<Self>] = [
      StoreOption(
        "max-nth-prime", \.maxNthPrime,
        help: "Largest n the nth-prime computation answers (about 2 s of CPU at 10^9)."
      ) {
        $0 >= 1 ? nil : "must be at least 1"
      },
      StoreOption(
        "wolfram-app-id", \.wolframAppID,
        help:
          "Wolfram|Alpha app id: the nth prime comes from its API instead of libprimesieve.",
        valueName: "id"),
      StoreOption(
        "wolfram-url", \.wolframURL,
        help: "Base URL of the Wolfram|Alpha API (with --wolfram-app-id)."),
    ]
  }

  public static let name = "primes"
  public static let summary =
    "PrimeTime: a counter, the nth prime, favourite primes saved to a file, and an activity feed."
  public static let initialState = PrimesState()
  /// The nth prime for n; a scenario's `{"nthPrimes": {"6": 13}}` answers it for n = 6.
  public static let nthPrimes = StoreDependency<Int, Int?>("nthPrimes")
  public static let dependencies: [any NamedDependency] = [nthPrimes]

  public static func reducer(options: Options, services: Services) -> PrimesReducer {
    let threadPool = services.threadPool
    let live: NthPrimeClient =
      if let appID = options.wolframAppID {
        .wolfram(http: services.http, baseURL: options.wolframURL, appID: appID)
      } else {
        .primesieve(threadPool: threadPool, largestN: options.maxNthPrime)
          .loggingFailures(to: services.log)
      }
    // Scripted, the client keeps the live one's limit, so that the alert for an n past it reads
    // the same in a scenario as in the run it was recorded from.
    let nthPrime = NthPrimeClient(
      largestN: live.largestN, nthPrime: services.dependency(nthPrimes, live: live.nthPrime))
    return PrimesReducer(
      dependencies: PrimesDependencies(
        nthPrime: nthPrime,
        favoritePrimes: .file(services.savedFile("favorite-primes.json"), threadPool: threadPool),
        now: services.now, logger: services.actionLogger))
  }
}

extension NthPrimeClient {
  /// The same client, logging why a computation failed (libprimesieve could not be loaded,
  /// say): the alert only says that it did. Not for the Wolfram client, whose errors quote the
  /// request's URL, app id included.
  fileprivate func loggingFailures(to log: Logger) -> Self {
    Self(largestN: largestN) { [nthPrime] n in
      do {
        return try await nthPrime(n)
      } catch {
        if !(error is CancellationError) {
          log.warning("the nth prime for n = \(n) could not be computed: \(error)")
        }
        throw error
      }
    }
  }
}

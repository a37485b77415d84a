internal import CPrimesieveShim
import ComposableRuntime
import PrimesFeature

extension NthPrimeClient {
  /// The nth prime from libprimesieve, computed on libuv's thread pool.
  ///
  /// A running primesieve call cannot be interrupted, so large n are searched in segments and
  /// the cancellation flag is checked between them: a cancelled request stops within one
  /// segment (tens of milliseconds) instead of finishing a multi-second search.
  ///
  /// The library is loaded by the first search, on the pool; one that cannot be loaded fails
  /// each search with ``NthPrimeSearch/PrimesieveUnavailable``.
  public static func primesieve(threadPool: ThreadPool, largestN: Int) -> Self {
    Self(largestN: largestN) { n in
      guard n >= 1, n <= largestN else { return nil }
      return try await threadPool.run { flag in try NthPrimeSearch.nthPrime(n, cancellation: flag) }
    }
  }
}

enum NthPrimeSearch {
  /// Below this n one primesieve call takes a few milliseconds: no need to segment.
  static let directSearchLimit = 1_000_000
  /// Numbers counted per segment: about 30 ms of work here.
  static let segmentLength: UInt64 = 1 << 26

  struct PrimesieveFailure: Error, CustomStringConvertible {
    let n: Int
    var description: String { "primesieve could not find the \(n)th prime" }
  }

  /// libprimesieve could not be loaded: `description` names it and quotes dlerror.
  struct PrimesieveUnavailable: Error, CustomStringConvertible {
    let description: String
  }

  static func nthPrime(
    _ n: Int, cancellation: CancellationFlag, segmentLength: UInt64 = segmentLength,
    directSearchLimit: Int = directSearchLimit
  ) throws -> Int {
    precondition(n >= 1)
    if let failure = cprimesieve_load() {
      throw PrimesieveUnavailable(description: String(cString: failure))
    }
    if n <= directSearchLimit { return try checked(cprimesieve_nth_prime(Int64(n), 0), n: n) }
    var remaining = UInt64(n)
    // Segments are [start, start + segmentLength); the first starts at 2, the first prime.
    var start: UInt64 = 2
    while true {
      try cancellation.checkCancellation()
      let stop = start + segmentLength - 1
      let count = try checked(cprimesieve_count_primes(start, stop), n: n)
      if UInt64(count) >= remaining {
        // The remaining-th prime greater than start - 1: the search resumes at start.
        return try checked(cprimesieve_nth_prime(Int64(remaining), start - 1), n: n)
      }
      remaining -= UInt64(count)
      start = stop + 1
    }
  }

  /// primesieve reports errors by returning UINT64_MAX.
  private static func checked(_ value: UInt64, n: Int) throws -> Int {
    guard value != UInt64.max, let result = Int(exactly: value) else {
      throw PrimesieveFailure(n: n)
    }
    return result
  }
}

import PrimesFeature
import XCTest

final class PrimalityTests: XCTestCase {
  func testAgreesWithASieveBelowOneHundredThousand() {
    let limit = 100_000
    let sieve = primeSieve(below: limit)
    for n in -5..<limit {
      XCTAssertEqual(Primality.isPrime(n), n >= 0 && sieve[n], "n = \(n)")
    }
  }

  func testLargePrimesAndStrongPseudoprimes() {
    // Largest 32- and 64-bit primes, and composites that fool small sets of bases.
    XCTAssertTrue(Primality.isPrime(4_294_967_291))
    XCTAssertTrue(Primality.isPrime(9_223_372_036_854_775_783))
    XCTAssertTrue(Primality.isPrime(1_000_000_007))
    XCTAssertFalse(Primality.isPrime(3_215_031_751))  // strong pseudoprime to bases 2, 3, 5, 7
    XCTAssertFalse(Primality.isPrime(561))  // Carmichael
    XCTAssertFalse(Primality.isPrime(3_825_123_056_546_413_051))  // fools bases up to 23
    XCTAssertFalse(Primality.isPrime(Int.max))
    XCTAssertFalse(Primality.isPrime(4_294_967_291 * 3))
  }
}

/// Whether each number below `limit` is prime, by Eratosthenes' sieve: what the tests check
/// faster code against.
func primeSieve(below limit: Int) -> [Bool] {
  var sieve = [Bool](repeating: true, count: limit)
  sieve[0] = false
  sieve[1] = false
  for i in 2..<limit where sieve[i] && i * i < limit {
    for multiple in stride(from: i * i, to: limit, by: i) { sieve[multiple] = false }
  }
  return sieve
}

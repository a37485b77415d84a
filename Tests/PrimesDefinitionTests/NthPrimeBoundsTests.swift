import PrimesFeature
import XCTest

@testable import PrimesDefinition

/// A server's nth prime is checked against where the nth prime lies.
final class NthPrimeBoundsTests: XCTestCase {
  func testEveryNthPrimeBelowAMillionIsAdmitted() {
    let limit = 1_000_000
    var n = 0
    // Primality is checked against a sieve in the feature's tests.
    for prime in 2..<limit where Primality.isPrime(prime) {
      n += 1
      XCTAssertTrue(NthPrimeBounds.admit(prime, n: n), "the \(n)th prime, \(prime)")
    }
    XCTAssertEqual(n, 78_498)
  }

  func testAnswersOutOfRangeAreRefused() {
    // The 7th prime is 17; the range admits 12 to 18.
    XCTAssertEqual((-5...25).filter { NthPrimeBounds.admit($0, n: 7) }, Array(12...18))
    XCTAssertFalse(NthPrimeBounds.admit(3, n: 1))
    XCTAssertFalse(NthPrimeBounds.admit(2, n: 0))
    XCTAssertFalse(NthPrimeBounds.admit(Int.max, n: 1_000_000))
    XCTAssertTrue(NthPrimeBounds.admit(15_485_863, n: 1_000_000))
  }
}

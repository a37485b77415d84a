import ComposableRuntime
import XCTest

@testable import PrimesDefinition

final class NthPrimeSearchTests: XCTestCase {
  /// Small segments put many answers right at, before and after segment boundaries.
  func testSegmentedSearchAgreesWithOneDirectSearch() throws {
    let flag = CancellationFlag()
    for n in [1, 2, 3, 4, 25, 26, 168, 169, 1_229, 1_230, 9_592, 78_498, 78_499] {
      let segmented = try NthPrimeSearch.nthPrime(
        n, cancellation: flag, segmentLength: 1_000, directSearchLimit: 0)
      XCTAssertEqual(segmented, try NthPrimeSearch.nthPrime(n, cancellation: flag), "n = \(n)")
    }
  }

  func testTheDefaultSegmentsCrossTheirFirstBoundary() throws {
    // 2^26 holds 3,957,809 primes: the 3,957,810th is the first in the second segment.
    let flag = CancellationFlag()
    XCTAssertEqual(try NthPrimeSearch.nthPrime(3_000_000, cancellation: flag), 49_979_687)
    XCTAssertEqual(try NthPrimeSearch.nthPrime(3_957_809, cancellation: flag), 67_108_859)
    XCTAssertEqual(try NthPrimeSearch.nthPrime(3_957_810, cancellation: flag), 67_108_879)
  }

  func testACancelledSearchStopsBetweenSegments() {
    let flag = CancellationFlag()
    flag.cancel()
    XCTAssertThrowsError(try NthPrimeSearch.nthPrime(1_000_000_000, cancellation: flag)) {
      XCTAssertTrue($0 is CancellationError)
    }
  }
}

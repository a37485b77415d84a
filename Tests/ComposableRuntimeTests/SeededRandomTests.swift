import XCTest

@testable import ComposableRuntime

final class SeededRandomTests: XCTestCase {
  /// The published first outputs of SplitMix64 from seed 0.
  func testTheGeneratorIsSplitMix64() {
    var generator = SplitMix64(state: 0)
    XCTAssertEqual(generator.next(), 0xE220_A839_7B1D_CDAF)
    XCTAssertEqual(generator.next(), 0x6E78_9E6A_A1B9_65F4)
  }

  func testTheSameSeedGivesTheSameChoices() {
    let first = SeededRandom(seed: 42)
    let second = SeededRandom(seed: 42)
    let other = SeededRandom(seed: 43)
    let choices = (0..<50).map { _ in first.int(in: 1...100) }
    XCTAssertEqual(choices, (0..<50).map { _ in second.int(in: 1...100) })
    XCTAssertNotEqual(choices, (0..<50).map { _ in other.int(in: 1...100) })
    XCTAssertTrue(choices.allSatisfy { (1...100).contains($0) })
    XCTAssertGreaterThan(Set(choices).count, 25, "50 draws from 1…100 should mostly differ")
  }
}

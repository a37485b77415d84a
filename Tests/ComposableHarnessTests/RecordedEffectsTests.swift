import ComposableRuntime
import EventLoop
import PrimesDefinition
import PrimesFeature
import XCTest

@testable import ComposableHarness

/// A live recording turned into a scenario runs the store's real effects again: the scenario
/// passes with the store that recorded it and fails when the effect code changes.
final class RecordedEffectsTests: XCTestCase {
  /// Made by `run --record` against a live primes store: 7, the nth prime (17, computed by
  /// libprimesieve), the alert dismissed, the favourites loaded, 7 saved.
  private let recordingPath =
    "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
    + "/Examples/recordings/primes-answers-live.jsonl"

  func testTheScenarioPassesWithTheStoreThatRecordedIt() throws {
    let outcome = try run(with: StoreCatalog([PrimesStore.self]))
    XCTAssertEqual(outcome.failed, 0, outcome.lines.joined(separator: "\n"))
    XCTAssertEqual(outcome.passed, 1)
  }

  func testTheScenarioFailsWhenTheEffectAsksForAnotherPrime() throws {
    let outcome = try run(with: StoreCatalog([OffByOnePrimes.self]))
    XCTAssertEqual(outcome.failed, 1)
    XCTAssertTrue(
      outcome.lines.joined(separator: "\n").contains(
        "unexpected nthPrimes request for 8: no answer in \"nthPrimes\""),
      outcome.lines.joined(separator: "\n"))
  }

  /// Writes the recording's scenario, as `replay --to-scenario` does, and runs it as `test`
  /// does, with `catalog`'s stores.
  private func run(with catalog: StoreCatalog) throws -> TestOutcome {
    let recording = try RecordingFile(path: recordingPath)
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let path = "\(folder.path)/scenario.jsonl"
    let scenario = ScenarioWriter.scenario(
      from: recording, named: "primes-answers-live.jsonl",
      initialStates: ["primes": try XCTUnwrap(PrimesStore.initialStateJSON)])
    try FileIO.writeAtomically(scenario, to: path)
    return try runTests([path], harness: .forTests(catalog))
  }
}

/// PrimeTime with a deliberate bug in one effect: it asks for the prime after the count.
private enum OffByOnePrimes: StoreDefinition {
  typealias Options = PrimesStore.Options
  static let name = PrimesStore.name
  static let summary = PrimesStore.summary
  static let actions = PrimesStore.actions
  static let initialState = PrimesStore.initialState
  static let dependencies = PrimesStore.dependencies

  static func reducer(options: Options, services: Services) -> PrimesReducer {
    let nthPrime = services.dependency(PrimesStore.nthPrimes) { _ in nil }
    return PrimesReducer(
      dependencies: PrimesDependencies(
        nthPrime: NthPrimeClient(largestN: options.maxNthPrime) { n in try await nthPrime(n + 1) },
        favoritePrimes: .file(
          path: "\(services.dataDirectory)/favorite-primes.json",
          threadPool: services.threadPool),
        now: services.now, logger: services.actionLogger))
  }
}

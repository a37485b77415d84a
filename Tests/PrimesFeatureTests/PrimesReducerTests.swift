import ComposableDependencies
import ComposableTestSupport
import PrimesFeature
import XCTest

@testable import StateCollections

/// Exhaustive tests of the PrimeTime app: every state change and every received action.
final class PrimesReducerTests: XCTestCase {
  struct StorageFailure: Error, CustomStringConvertible {
    let description: String
  }

  /// Dependencies whose answers the test decides; the clock paces "slow" computations.
  private func dependencies(
    clock: VirtualClock,
    nthPrime: @escaping @Sendable (Int) async throws -> Int? = { _ in
      XCTFail("nthPrime not expected")
      return nil
    },
    largestN: Int? = 1_000,
    load: @escaping @Sendable () async throws -> [Int] = {
      XCTFail("load not expected")
      return []
    },
    save: @escaping @Sendable ([Int]) async throws -> Void = { _ in XCTFail("save not expected") }
  ) -> PrimesDependencies {
    PrimesDependencies(
      nthPrime: NthPrimeClient(largestN: largestN, nthPrime: nthPrime),
      favoritePrimes: FavoritePrimesStorage(load: load, save: save),
      now: { 1_700_000_000_000 + Int(clock.now.offset.components.seconds) * 1000 })
  }

  private func makeStore(
    _ state: PrimesState = PrimesState(), clock: VirtualClock = VirtualClock(),
    _ dependencies: (VirtualClock) -> PrimesDependencies
  ) -> TestStore<PrimesState, PrimesAction> {
    TestStore(
      initialState: state, reducer: PrimesReducer(dependencies: dependencies(clock)), clock: clock)
  }

  func testIncrementAndDecrement() {
    let store = makeStore { dependencies(clock: $0) }
    store.send(.counter(.incrTapped)) { $0.count = 1 }
    store.send(.counter(.incrTapped)) { $0.count = 2 }
    store.send(.counter(.decrTapped)) { $0.count = 1 }
    store.finish()
  }

  func testCountCanBeTypedIn() {
    let store = makeStore { dependencies(clock: $0) }
    store.send(.counter(.countChanged(1_000_000))) { $0.count = 1_000_000 }
    store.finish()
  }

  func testCountSaturatesInsteadOfOverflowing() {
    let store = makeStore(PrimesState(count: .max)) { dependencies(clock: $0) }
    store.send(.counter(.incrTapped))
    store.finish()
    let low = makeStore(PrimesState(count: .min)) { dependencies(clock: $0) }
    low.send(.counter(.decrTapped))
    low.finish()
  }

  func testNthPrimeHappyPath() {
    let store = makeStore(PrimesState(count: 5)) { clock in
      dependencies(clock: clock) { n in
        try await clock.sleep(for: .seconds(1))
        return n == 5 ? 11 : nil
      }
    }
    store.send(.counter(.nthPrimeButtonTapped)) { $0.nthPrimeRequest = 5 }
    store.advance(by: .seconds(1))
    store.receive(.counter(.nthPrimeResponse(11))) {
      $0.nthPrimeRequest = nil
      $0.alertNthPrime = PrimeAlert(n: 5, prime: 11)
    }
    store.send(.counter(.alertDismissButtonTapped)) { $0.alertNthPrime = nil }
    store.finish()
  }

  func testNthPrimeOfZeroIsAClearFailure() {
    let store = makeStore(PrimesState(count: 0)) { dependencies(clock: $0) { _ in nil } }
    store.send(.counter(.nthPrimeButtonTapped)) { $0.nthPrimeRequest = 0 }
    store.receive(.counter(.nthPrimeResponse(nil))) {
      $0.nthPrimeRequest = nil
      $0.alertNthPrimeFailure = NthPrimeFailure(
        n: 0, message: "There is no 0th prime: n must be 1 or more.")
    }
    store.finish()
  }

  func testNthPrimeBeyondTheLimitSaysSo() {
    let store = makeStore(PrimesState(count: 1_001)) { dependencies(clock: $0) { _ in nil } }
    store.send(.counter(.nthPrimeButtonTapped)) { $0.nthPrimeRequest = 1_001 }
    store.receive(.counter(.nthPrimeResponse(nil))) {
      $0.nthPrimeRequest = nil
      $0.alertNthPrimeFailure = NthPrimeFailure(
        n: 1_001,
        message: "The 1001st prime is out of range: the largest n answered is 1000.")
    }
    store.finish()
  }

  func testNthPrimeErrorBecomesANilResponse() {
    let store = makeStore(PrimesState(count: 3)) { clock in
      dependencies(clock: clock) { _ in throw StorageFailure(description: "boom") }
    }
    store.send(.counter(.nthPrimeButtonTapped)) { $0.nthPrimeRequest = 3 }
    store.receive(.counter(.nthPrimeResponse(nil))) {
      $0.nthPrimeRequest = nil
      $0.alertNthPrimeFailure = NthPrimeFailure(
        n: 3, message: "The 3rd prime could not be computed.")
    }
    store.finish()
  }

  func testANewRequestCancelsTheOldOne() {
    let store = makeStore(PrimesState(count: 2)) { clock in
      dependencies(clock: clock) { n in
        try await clock.sleep(for: .seconds(1))
        return n == 2 ? 3 : 5
      }
    }
    store.send(.counter(.nthPrimeButtonTapped)) { $0.nthPrimeRequest = 2 }
    store.advance(by: .milliseconds(500))
    store.send(.counter(.incrTapped)) { $0.count = 3 }
    store.send(.counter(.nthPrimeButtonTapped)) { $0.nthPrimeRequest = 3 }
    store.advance(by: .seconds(1))
    store.receive(.counter(.nthPrimeResponse(5))) {
      $0.nthPrimeRequest = nil
      $0.alertNthPrime = PrimeAlert(n: 3, prime: 5)
    }
    store.finish()
  }

  func testDismissingCancelsTheRequestInFlight() {
    let store = makeStore(PrimesState(count: 2)) { clock in
      dependencies(clock: clock) { _ in
        try await clock.sleep(for: .seconds(1))
        return 3
      }
    }
    store.send(.counter(.nthPrimeButtonTapped)) { $0.nthPrimeRequest = 2 }
    store.send(.counter(.alertDismissButtonTapped)) { $0.nthPrimeRequest = nil }
    store.advance(by: .seconds(2))
    store.finish()
  }

  func testSavingAndRemovingAFavoriteFillsTheActivityFeed() {
    let store = makeStore(PrimesState(count: 7)) { dependencies(clock: $0) }
    store.send(.primeModal(.saveFavoritePrimeTapped)) {
      $0.favoritePrimes = [7]
      $0.activityFeed = [
        Activity(timestamp: 1_700_000_000_000, type: .addedFavoritePrime, prime: 7)
      ]
    }
    store.send(.primeModal(.saveFavoritePrimeTapped))
    store.send(.primeModal(.removeFavoritePrimeTapped)) {
      $0.favoritePrimes = []
      $0.activityFeed.append(
        Activity(timestamp: 1_700_000_000_000, type: .removedFavoritePrime, prime: 7))
    }
    store.finish()
  }

  /// The modal and the favourites reach the favourites through views of the app state; a
  /// change made there still copies none of the favourites held.
  func testAFavoriteIsSavedAndRemovedWithoutCopyingTheOthers() {
    let reducer = PrimesReducer(dependencies: dependencies(clock: VirtualClock()))
    var state = PrimesState(count: 7, favoritePrimes: [2, 3, 5])
    state.favoritePrimes.reserveCapacity(16)
    let address = state.favoritePrimes.storageAddress
    _ = reducer.reduce(into: &state, action: .primeModal(.saveFavoritePrimeTapped))
    XCTAssertEqual(state.favoritePrimes, [2, 3, 5, 7])
    _ = reducer.reduce(into: &state, action: .favoritePrimes(.deleteFavoritePrimes(indices: [3])))
    XCTAssertEqual(state.favoritePrimes, [2, 3, 5])
    XCTAssertEqual(state.favoritePrimes.storageAddress, address)
    XCTAssertEqual(state.activityFeed.map(\.type), [.addedFavoritePrime, .removedFavoritePrime])
  }

  func testANonPrimeCannotBecomeAFavorite() {
    let store = makeStore(PrimesState(count: 8)) { dependencies(clock: $0) }
    store.send(.primeModal(.saveFavoritePrimeTapped))
    store.finish()
  }

  func testDeletingFavoritesByIndexIgnoresStaleIndices() {
    let store = makeStore(PrimesState(favoritePrimes: [2, 3, 5, 7])) { dependencies(clock: $0) }
    store.send(.favoritePrimes(.deleteFavoritePrimes(indices: [3, 1, 9, -1, 1]))) {
      $0.favoritePrimes = [2, 5]
      $0.activityFeed = [
        Activity(timestamp: 1_700_000_000_000, type: .removedFavoritePrime, prime: 3),
        Activity(timestamp: 1_700_000_000_000, type: .removedFavoritePrime, prime: 7),
      ]
    }
    store.finish()
  }

  func testSaveSucceeds() {
    let saved = LockedBox<[[Int]]>([])
    let store = makeStore(PrimesState(favoritePrimes: [2, 3])) { clock in
      dependencies(clock: clock, save: { saved.append($0) })
    }
    store.send(.favoritePrimes(.saveButtonTapped))
    store.receive(.favoritePrimes(.savedFavoritePrimes))
    store.finish()
    XCTAssertEqual(saved.value, [[2, 3]])
  }

  func testSaveFailureIsShownAndClearedByTheNextSuccess() {
    let failing = LockedBox(true)
    let store = makeStore(PrimesState(favoritePrimes: [2])) { clock in
      dependencies(
        clock: clock,
        save: { _ in
          if failing.value { throw StorageFailure(description: "disk full") }
        })
    }
    store.send(.favoritePrimes(.saveButtonTapped))
    store.receive(.favoritePrimes(.storageFailed(operation: .save, message: "disk full"))) {
      $0.storageError = StorageError(operation: .save, message: "disk full")
    }
    failing.set(false)
    store.send(.favoritePrimes(.saveButtonTapped))
    store.receive(.favoritePrimes(.savedFavoritePrimes)) { $0.storageError = nil }
    store.finish()
  }

  func testLoadReplacesTheFavorites() {
    let store = makeStore(PrimesState(favoritePrimes: [2])) { clock in
      dependencies(clock: clock, load: { [3, 5] })
    }
    store.send(.favoritePrimes(.loadButtonTapped))
    store.receive(.favoritePrimes(.loadedFavoritePrimes([3, 5]))) { $0.favoritePrimes = [3, 5] }
    store.finish()
  }

  func testLoadFailureKeepsTheFavorites() {
    let store = makeStore(PrimesState(favoritePrimes: [2])) { clock in
      dependencies(clock: clock, load: { throw StorageFailure(description: "corrupt file") })
    }
    store.send(.favoritePrimes(.loadButtonTapped))
    store.receive(.favoritePrimes(.storageFailed(operation: .load, message: "corrupt file"))) {
      $0.storageError = StorageError(operation: .load, message: "corrupt file")
    }
    store.finish()
  }

  func testLoggingSeesEveryAction() {
    let lines = LockedBox<[String]>([])
    let clock = VirtualClock()
    var dependencies = dependencies(clock: clock)
    dependencies.logger = ActionLogger(isEnabled: true) { lines.append($0) }
    let store = TestStore(
      initialState: PrimesState(), reducer: PrimesReducer(dependencies: dependencies), clock: clock)
    store.send(.counter(.incrTapped)) { $0.count = 1 }
    store.finish()
    XCTAssertEqual(lines.value.count, 1)
    XCTAssertTrue(
      lines.value[0].hasPrefix("action: counter(PrimesFeature.CounterAction.incrTapped)"),
      lines.value[0])
  }
}

final class PrimesSchemaTests: XCTestCase {
  /// The state's schema is read from what it encodes: the derived members are in it.
  func testTheStateSchemaListsEveryEncodedMember() {
    let schema = TypeSchema.of(value: PrimesState())
    XCTAssertEqual(
      schema["required"]?.arrayValue?.compactMap(\.stringValue),
      PrimesState.encodedFields.map(\.key))
    XCTAssertEqual(schema["properties"]?["isPrime"], ["type": "boolean"])
    XCTAssertEqual(
      schema["properties"]?["nthPrimeRequest"], ["oneOf": [["type": "null"], ["type": "integer"]]])
  }
}

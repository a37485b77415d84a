import ComposableCore
import ComposableTestSupport
@_spi(Hosting) import JSON
import PrimesFeature
import XCTest

@testable import Protocol
@testable import StateCollections

/// The patches of a ``FieldwiseEncodable`` state, and those of walking it with
/// ``JSONPatchEncoder``, must turn each state's encoding into the next one's. Where no tracked
/// collection changed they are exactly the patches of encoding the whole state and diffing it,
/// which are correct by construction; a tracked collection's changes are written from its
/// journal instead (an element added and removed again in one patch is an `add` and a
/// `remove`, where a diff sees nothing; a new collection is written whole unless the member
/// list's `==` finds it equal).
final class StateJSONTests: XCTestCase {
  func testFieldwisePatchesEqualWholeStateDiffs() throws {
    var random = RandomPrimesState(seed: 7)
    var state = random.state()
    let fieldwise = StateJSON.fieldwise(state, store: "primes")
    let memberwise = StateJSON.memberwise(state, store: "primes")
    for step in 0..<1_000 {
      let before = try JSONValueEncoder().encode(state)
      let (feed, favorites) = (state.activityFeed, state.favoritePrimes)
      state = step % 10 == 0 ? random.state() : random.edited(state)
      let after = try JSONValueEncoder().encode(state)
      let patches = [try patchText(fieldwise, state), try patchText(memberwise, state)]
      for patch in patches {
        XCTAssertEqual(
          try JSONPatch.apply(operations(patch), to: before), after, "step \(step): \(patch)")
      }
      if state.activityFeed.changeToken == feed.changeToken,
        state.favoritePrimes.changeToken == favorites.changeToken
      {
        var whole: [UInt8] = []
        JSONPatch.write(JSONPatch.diff(from: before, to: after), into: &whole)
        XCTAssertEqual(patches, Array(repeating: String(decoding: whole, as: UTF8.self), count: 2))
      }
      // Same members in the same order, as the host's snapshot prints them.
      XCTAssertEqual(fieldwise.current(state).jsonString, after.jsonString, "step \(step)")
    }
  }

  /// A host given to another instance resets its tracker to that instance's state: the next
  /// patch starts from it, whatever the tracker patched before, both for members walked before
  /// and for those it never patched (a scalar's first patch compares it without a walk). The
  /// value a member held before the reset is the next state's in half of the resets, so a
  /// tracker that kept it would write too little.
  func testPatchesAfterAResetStartFromTheStateGiven() throws {
    var random = RandomPrimesState(seed: 11)
    var state = random.state()
    let trackers = [
      StateJSON.fieldwise(state, store: "primes"), StateJSON.memberwise(state, store: "primes"),
    ]
    for step in 0..<600 {
      var before = try JSONValueEncoder().encode(state)
      if step % 3 == 0 {
        let next = random.edited(state)
        state = step % 2 == 0 ? random.state() : random.edited(next)
        for tracker in trackers { tracker.reset(state) }
        before = try JSONValueEncoder().encode(state)
        state = next
      } else {
        state = random.edited(state)
      }
      let after = try JSONValueEncoder().encode(state)
      for tracker in trackers {
        let patch = try patchText(tracker, state)
        XCTAssertEqual(
          try JSONPatch.apply(operations(patch), to: before), after, "step \(step): \(patch)")
      }
    }
  }

  /// The tracker keeps no copy of a tracked member once it patched it: a copy would make each
  /// of the store's later changes to it copy every element. (Until its first patch the tracker
  /// holds the member's first value, so the store's first change copies it once.)
  func testPatchingKeepsNoCopyOfATrackedMember() throws {
    var state = PrimesState(count: 7, favoritePrimes: [2, 3])
    let fieldwise = StateJSON.fieldwise(state, store: "primes")
    var addresses: (favorites: UnsafeRawPointer?, feed: UnsafeRawPointer?)?
    for prime in [5, 7, 11] {
      state.favoritePrimes.append(prime)
      state.activityFeed.append(Activity(timestamp: 0, type: .addedFavoritePrime, prime: prime))
      if addresses == nil {
        state.favoritePrimes.reserveCapacity(16)
        state.activityFeed.reserveCapacity(16)
      }
      XCTAssertEqual(
        try patchText(fieldwise, state),
        #"[{"op":"add","path":"/favoritePrimes/\#(state.favoritePrimes.count - 1)","value":\#(prime)},"#
          + #"{"op":"add","path":"/activityFeed/\#(state.activityFeed.count - 1)","#
          + #""value":{"timestamp":0,"type":"addedFavoritePrime","prime":\#(prime)}}"#
          + (prime == 7 ? #",{"op":"replace","path":"/isFavorite","value":true}]"# : "]"))
      if let addresses {
        XCTAssertEqual(state.favoritePrimes.storageAddress, addresses.favorites)
        XCTAssertEqual(state.activityFeed.storageAddress, addresses.feed)
      }
      addresses = (state.favoritePrimes.storageAddress, state.activityFeed.storageAddress)
    }
  }

  /// The tracker ``FieldwiseState()`` writes reports what the general one (each field's
  /// detector, through its closure) reports, so the patches are the same bytes, on random
  /// edits, wholesale replacements and resets.
  func testTheGeneratedTrackerPatchesAsTheGeneralOne() throws {
    var random = RandomPrimesState(seed: 23)
    var state = random.state()
    let generated = StateJSON.fieldwise(state, store: "primes")
    let general = StateJSON.fieldwise(
      state, store: "primes", tracking: EncodedFieldsTracker<PrimesState>.self)
    for step in 0..<2_000 {
      state = step % 10 == 0 ? random.state() : random.edited(state)
      if step % 97 == 0 {
        generated.reset(state)
        general.reset(state)
        state = random.edited(state)
      }
      XCTAssertEqual(try patchText(generated, state), try patchText(general, state), "step \(step)")
    }
  }

  /// What each tracker reports on a change of every kind of member: a scalar, a derived one, an
  /// optional, a tracked collection changed in place or replaced by an equal one.
  func testEachTrackerReportsTheChangedMembersInOrder() {
    var state = PrimesState(count: 4, favoritePrimes: [2])
    var generated = PrimesState.FieldTracker(state)
    var general = EncodedFieldsTracker<PrimesState>(state)
    func reports() -> [[String]] {
      var (first, second) = (RecordingSink(), RecordingSink())
      generated.reportChanges(to: state, into: &first)
      general.reportChanges(to: state, into: &second)
      return [first.members, second.members]
    }
    XCTAssertEqual(reports(), [[], []])
    state.count = 5
    XCTAssertEqual(reports(), Array(repeating: ["count: 5", "isPrime: true"], count: 2))
    state.favoritePrimes.append(5)
    XCTAssertEqual(
      reports(), Array(repeating: ["favoritePrimes: [2,5]", "isFavorite: true"], count: 2))
    state.nthPrimeRequest = 3
    XCTAssertEqual(
      reports(),
      Array(repeating: ["nthPrimeRequest: 3", "isNthPrimeButtonDisabled: true"], count: 2))
    // A new empty feed for an empty one: equal versions.
    state.activityFeed = []
    XCTAssertEqual(reports(), [[], []])
  }

  func testAnUnchangedStateGivesNoPatch() {
    let state = PrimesState(count: 5, favoritePrimes: [2, 3])
    let fieldwise = StateJSON.fieldwise(state, store: "primes")
    XCTAssertEqual(try patchText(fieldwise, state), "[]")
  }

  func testADerivedFieldIsPatchedWithTheFieldItDerivesFrom() {
    let fieldwise = StateJSON.fieldwise(PrimesState(count: 4), store: "primes")
    XCTAssertEqual(
      try patchText(fieldwise, PrimesState(count: 5)),
      #"[{"op":"replace","path":"/count","value":5},"#
        + #"{"op":"replace","path":"/isPrime","value":true}]"#)
  }

  func testAChangedCollectionIsPatchedByElement() throws {
    var state = PrimesState(favoritePrimes: [2, 3])
    let fieldwise = StateJSON.fieldwise(state, store: "primes")
    state.favoritePrimes.append(5)
    XCTAssertEqual(
      try patchText(fieldwise, state),
      #"[{"op":"add","path":"/favoritePrimes/2","value":5}]"#)
  }

  /// The patch the tracker writes on going to `state`, checked to be one JSON array.
  private func patchText(_ tracker: StateJSON<PrimesState>, _ state: PrimesState) throws
    -> String
  {
    var bytes: [UInt8] = []
    tracker.writePatch(state, &bytes)
    XCTAssertNotNil(try bytes.withUnsafeBytes { try JSONParser.parse($0) }.arrayValue)
    return String(decoding: bytes, as: UTF8.self)
  }

  private func operations(_ patch: String) throws -> [JSONPatchOperation] {
    let array = try Array(patch.utf8).withUnsafeBytes { try JSONParser.parse($0) }.arrayValue
    return try (array ?? []).map { try JSONPatchOperation(json: $0) }
  }

  func testTheEncodedMembersAreTheListedFieldsInOrder() throws {
    let encoded = try JSONValueEncoder().encode(PrimesState())
    XCTAssertEqual(encoded.objectValue?.keys, PrimesState.encodedFields.map(\.key))
  }
}

/// Records each member reported, as `key: JSON`.
private struct RecordingSink: FieldChangeSink {
  var members: [String] = []

  mutating func member<Value: Encodable>(_ index: Int, changedTo value: Value) {
    let json = (try? JSONValueEncoder().encode(value))?.jsonString ?? "?"
    members.append("\(PrimesState.encodedFields[index].key): \(json)")
  }
}

/// Random primes states, and random edits of a few fields of one.
private struct RandomPrimesState {
  var generator: SeededGenerator

  init(seed: UInt64) {
    generator = SeededGenerator(seed: seed)
  }

  mutating func state() -> PrimesState {
    var state = PrimesState()
    for field in 0..<fieldCount where chance(2) { edit(&state, field: field) }
    return state
  }

  mutating func edited(_ state: PrimesState) -> PrimesState {
    var state = state
    for _ in 0...int(in: 0...2) { edit(&state, field: int(in: 0...(fieldCount - 1))) }
    return state
  }

  private let fieldCount = 7

  private mutating func edit(_ state: inout PrimesState, field: Int) {
    switch field {
    case 0:
      state.count = int(in: -3...40)
    case 1:
      let prime = [2, 3, 5, 7, 11, 13][int(in: 0...5)]
      if chance(4) {
        state.favoritePrimes = TrackedOrderedSet(
          (0..<int(in: 0...4)).map { _ in [2, 3, 5, 7, 11, 13][int(in: 0...5)] })
      } else if state.favoritePrimes.remove(prime) == nil {
        state.favoritePrimes.insert(prime, at: int(in: 0...state.favoritePrimes.count))
      }
    case 2:
      if chance(3), !state.activityFeed.isEmpty {
        state.activityFeed.removeLast()
      } else {
        state.activityFeed.append(
          Activity(
            timestamp: int(in: 0...1_000),
            type: chance(2) ? .addedFavoritePrime : .removedFavoritePrime,
            prime: int(in: 2...50)))
      }
    case 3:
      state.alertNthPrime = chance(2) ? nil : PrimeAlert(n: int(in: 1...9), prime: int(in: 2...30))
    case 4:
      state.alertNthPrimeFailure =
        chance(2) ? nil : NthPrimeFailure(n: int(in: -2...0), message: "no \"prime\" / here")
    case 5:
      state.nthPrimeRequest = chance(2) ? nil : int(in: 0...9)
    default:
      state.storageError =
        chance(2) ? nil : StorageError(operation: chance(2) ? .load : .save, message: "disk ~full")
    }
  }

  private mutating func int(in range: ClosedRange<Int>) -> Int {
    Int.random(in: range, using: &generator)
  }

  private mutating func chance(_ oneIn: Int) -> Bool {
    int(in: 1...oneIn) == 1
  }
}

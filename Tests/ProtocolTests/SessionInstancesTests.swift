import ComposableCore
import ComposableTestSupport
import JSON
import PrimesFeature
@_spi(Hosting) import Protocol
import XCTest

/// Instances: a line may name one with `"instance"`; each has its own state, effects and lines.
final class SessionInstancesTests: XCTestCase {
  private let built = LockedBox<[String]>([])

  func testANamedInstanceHasItsOwnStateAndEveryLineAboutItNamesIt() {
    let text = run([
      #"{"store":"primes","instance":"a","action":"counter.incrTapped","id":1}"#,
      #"{"store":"primes","action":"counter.incrTapped"}"#,
      #"{"store":"primes","instance":"a","action":{"type":"counter.incrTapped"}}"#,
      #"{"cmd":"snapshot","store":"primes","instance":"a"}"#,
      #"{"cmd":"snapshot","store":"primes"}"#,
    ])
    XCTAssertEqual(built.value, ["primes/a", "primes"])
    XCTAssertEqual(
      text.split(separator: "\n").dropFirst().prefix(3),
      [
        #"{"type":"action","store":"primes","instance":"a","seq":1,"id":1,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":1}]}"#,
        #"{"type":"action","store":"primes","seq":2,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":1}]}"#,
        #"{"type":"action","store":"primes","instance":"a","seq":3,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":2},{"op":"replace","path":"/isPrime","value":true}]}"#,
      ])
    let snapshots = lines(text).suffix(2)
    XCTAssertEqual(snapshots.map { $0["instance"] }, ["a", nil])
    XCTAssertEqual(snapshots.map { $0["state"]?["count"] }, [2, 1])
  }

  func testASnapshotActivatesTheInstanceInTheInitialState() {
    let lines = lines(run([#"{"cmd":"snapshot","store":"primes","instance":"new"}"#]))
    XCTAssertEqual(built.value, ["primes/new"])
    XCTAssertEqual(lines.last?["instance"], "new")
    XCTAssertEqual(lines.last?["state"]?["count"], 0)
  }

  func testAKeyIsANonEmptyStringOfAtMost256BytesWithoutControlCharacters() {
    let clef = String(repeating: "\u{1D11E}", count: 64)  // 256 bytes of 4-byte characters
    let lines = lines(
      run([
        #"{"store":"primes","instance":"","action":"counter.incrTapped"}"#,
        #"{"store":"primes","instance":"\#(String(repeating: "k", count: 257))","action":"counter.incrTapped"}"#,
        #"{"store":"primes","instance":"a\tb","action":"counter.incrTapped","id":"t"}"#,
        #"{"store":"primes","instance":"a\u007fb","action":"counter.incrTapped"}"#,
        #"{"store":"primes","instance":7,"action":"counter.incrTapped"}"#,
        #"{"cmd":"snapshot","store":"primes","instance":null}"#,
        #"{"store":"primes","instance":"\#(clef)","action":"counter.incrTapped"}"#,
      ]))
    XCTAssertEqual(
      lines.dropFirst().prefix(6).map { $0["message"] },
      [
        #""instance" must not be empty"#,
        #""instance" must be at most 256 bytes of UTF-8, got 257"#,
        #""instance" must not contain control characters, got U+0009 at byte 1"#,
        #""instance" must not contain control characters, got U+007F at byte 1"#,
        #""instance" must be a string, got 7"#,
        #"snapshot: "instance" must be a string, got null"#,
      ])
    XCTAssertEqual(
      lines.dropFirst().prefix(6).map { $0["code"] },
      Array(repeating: JSONValue?.some("invalid_message"), count: 6))
    XCTAssertEqual(lines[3]["id"], "t")
    XCTAssertEqual(built.value, ["primes/\(clef)"])
    XCTAssertEqual(lines.last?["instance"]?.stringValue, clef)
  }

  func testInstancesListsTheNamedKeysInByteOrderAPageAtATime() {
    let lines = lines(
      run([
        #"{"store":"primes","instance":"c","action":"counter.incrTapped"}"#,
        #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
        #"{"store":"primes","action":"counter.incrTapped"}"#,
        #"{"cmd":"snapshot","store":"primes","instance":"b"}"#,
        #"{"cmd":"instances","store":"primes","limit":2,"id":1}"#,
        #"{"cmd":"instances","store":"primes","limit":2,"after":"b"}"#,
        #"{"cmd":"instances","store":"other"}"#,
        #"{"cmd":"instances","store":"primes","after":"aa"}"#,
      ]))
    XCTAssertEqual(
      Array(lines.suffix(4)),
      [
        [
          "type": "instances", "store": "primes", "id": 1, "active": ["a", "b"], "count": 3,
          "next": "b",
        ],
        ["type": "instances", "store": "primes", "active": ["c"], "count": 3],
        ["type": "instances", "store": "other", "active": [], "count": 0],
        ["type": "instances", "store": "primes", "active": ["b", "c"], "count": 3],
      ])
  }

  func testStopCancelsTheInstancesEffectsAndFreesIt() {
    let lines = lines(
      run([
        #"{"store":"primes","instance":"a","action":"counter.nthPrimeButtonTapped"}"#,
        #"{"cmd":"stop","store":"primes","instance":"a","id":"s"}"#,
        #"{"cmd":"instances","store":"primes"}"#,
        #"{"cmd":"stop","store":"primes","instance":"a"}"#,
        #"{"cmd":"stop","store":"primes"}"#,
        #"{"cmd":"snapshot","store":"primes","instance":"a"}"#,
      ]))
    XCTAssertEqual(
      Array(lines.dropFirst(2)),
      [
        ["type": "stopped", "store": "primes", "instance": "a", "id": "s", "cancelledEffects": 1],
        ["type": "instances", "store": "primes", "active": [], "count": 0],
        [
          "type": "error", "code": "unknown_instance", "store": "primes", "instance": "a",
          "line": 4, "message": #"stop: primes has no instance "a" in memory"#,
        ],
        [
          "type": "error", "code": "invalid_command", "line": 5,
          "message": #"stop: "instance" (the key of the instance to stop) is required"#,
        ],
        lines.last!,
      ])
    // Stopped, the instance starts again from the initial state, and its answer never came.
    XCTAssertEqual(lines.last?["state"]?["count"], 0)
    XCTAssertEqual(lines.last?["state"]?["isNthPrimeButtonDisabled"], false)
    XCTAssertEqual(built.value, ["primes/a", "primes/a"])
  }

  func testActivatingPastMaxInstancesIsRefusedAndChangesNothing() {
    let lines = lines(
      run(
        [
          #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"b","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"c","action":"counter.incrTapped","id":9}"#,
          #"{"cmd":"snapshot","store":"primes","instance":"d"}"#,
          #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
          #"{"store":"primes","action":"counter.incrTapped"}"#,
          #"{"cmd":"stop","store":"primes","instance":"b"}"#,
          #"{"store":"primes","instance":"c","action":"counter.incrTapped"}"#,
        ], maxInstances: 2))
    XCTAssertEqual(
      lines[3],
      [
        "type": "error", "code": "instance_limit", "store": "primes", "instance": "c", "line": 3,
        "id": 9,
        "message":
          #"primes has 2 instances in memory (--max-instances); stop one before activating "c""#,
      ])
    XCTAssertEqual(lines[4]["code"], "instance_limit")
    XCTAssertEqual(lines[5]["patch"]?.arrayValue?.first?["value"], 2, "a kept its state")
    XCTAssertEqual(lines[6]["instance"], nil, "the default instance is not counted")
    XCTAssertEqual(lines.last?["instance"], "c")
    XCTAssertEqual(built.value, ["primes/a", "primes/b", "primes", "primes/c"])
  }

  func testPastMaxActiveTheLeastRecentlyUsedIdleInstanceIsParkedAndResumesWhereItWas() {
    let lines = lines(
      run(
        [
          #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"b","action":"counter.nthPrimeButtonTapped"}"#,
          #"{"store":"primes","instance":"c","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"d","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
          #"{"cmd":"instances","store":"primes"}"#,
        ], maxActiveInstances: 2))
    // c's activation parked a and took its host; d's could not park b (its nth prime is in
    // flight), so the hand's second turn parked c; a's return parked d. Each took the host of
    // the instance it parked, and a resumed in the state it was parked in.
    XCTAssertEqual(
      built.value,
      ["primes/a", "primes/b", "primes/c (reused)", "primes/d (reused)", "primes/a (reused)"])
    XCTAssertEqual(
      lines[6],
      [
        "type": "action", "store": "primes", "instance": "a", "seq": 6, "source": "host",
        "action": ["type": "counter.incrTapped"],
        "patch": [["op": "replace", "path": "/count", "value": 3]],
      ])
    XCTAssertEqual(lines[7]["active"], ["a", "b", "c", "d"])
    XCTAssertEqual(lines[7]["count"], 4)
  }

  func testAnInstanceUsedSinceTheHandPassedIsKeptAndAnUnusedOneParked() {
    let keys = ["a", "b", "c", "d", "b", "e", "b", "c"]
    _ = run(
      keys.map { #"{"store":"primes","instance":"\#($0)","action":"counter.incrTapped"}"# },
      maxActiveInstances: 3)
    // d's activation parked a and cleared the marks of b and c; b was used again, so e's
    // parked c, whose next line gave it a parked host again, and b stayed.
    XCTAssertEqual(
      built.value,
      [
        "primes/a", "primes/b", "primes/c", "primes/d (reused)", "primes/e (reused)",
        "primes/c (reused)",
      ])
  }

  func testAParkedHostGivenToAnotherInstanceStartsItInItsOwnStateUnderItsOwnKey() {
    let lines = lines(
      run(
        [
          #"{"store":"primes","instance":"a","action":{"type":"counter.countChanged","value":2}}"#,
          #"{"store":"primes","instance":"a","action":"primeModal.saveFavoritePrimeTapped"}"#,
          #"{"store":"primes","instance":"b","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"b","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"b","action":"primeModal.saveFavoritePrimeTapped"}"#,
          #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
          #"{"cmd":"snapshot","store":"primes","instance":"b"}"#,
        ], maxActiveInstances: 1))
    XCTAssertEqual(
      built.value, ["primes/a", "primes/b (reused)", "primes/a (reused)", "primes/b (reused)"])
    // b's lines patch b's initial state, not a's, and name b.
    XCTAssertEqual(lines[3]["instance"], "b")
    XCTAssertEqual(
      lines[3]["patch"], [["op": "replace", "path": "/count", "value": 1]])
    XCTAssertEqual(
      lines[5]["patch"],
      [
        ["op": "add", "path": "/favoritePrimes/0", "value": 2],
        [
          "op": "add", "path": "/activityFeed/0",
          "value": ["timestamp": 0, "type": "addedFavoritePrime", "prime": 2],
        ],
        ["op": "replace", "path": "/isFavorite", "value": true],
      ])
    // a goes on from where it was parked, b's state is its own.
    XCTAssertEqual(lines[6]["instance"], "a")
    XCTAssertEqual(
      lines[6]["patch"],
      [
        ["op": "replace", "path": "/count", "value": 3],
        ["op": "replace", "path": "/isFavorite", "value": false],
      ])
    XCTAssertEqual(lines[7]["state"]?["count"], 2)
    XCTAssertEqual(lines[7]["state"]?["favoritePrimes"], [2])
  }

  func testAStoppedParkedInstanceHadNoEffectsToCancel() {
    let lines = lines(
      run(
        [
          #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"b","action":"counter.incrTapped"}"#,
          #"{"store":"primes","instance":"c","action":"counter.incrTapped"}"#,
          #"{"cmd":"stop","store":"primes","instance":"a"}"#,
          #"{"cmd":"snapshot","store":"primes","instance":"a"}"#,
        ], maxActiveInstances: 1))
    XCTAssertEqual(lines[4]["cancelledEffects"], 0)
    XCTAssertEqual(lines[5]["state"]?["count"], 0)
  }

  func testAnActionTheStoreRefusesNamesTheInstance() {
    let lines = lines(
      run([
        #"{"store":"primes","instance":"a","action":"counter.nope"}"#,
        #"{"store":"nope","instance":"a","action":"counter.incrTapped"}"#,
        #"{"store":"primes","action":"counter.nope"}"#,
      ]))
    XCTAssertEqual(lines[1]["code"], "unknown_action")
    XCTAssertEqual(lines[1]["instance"], "a")
    XCTAssertEqual(lines[1]["store"], "primes")
    XCTAssertEqual(lines[2]["code"], "unknown_store")
    XCTAssertEqual(lines[2]["instance"], "a")
    XCTAssertEqual(lines[3]["store"], nil, "an error about the default instance is as before")
  }

  private func lines(_ text: String) -> [JSONValue] {
    text.split(separator: "\n").map { line in
      (try? Array(line.utf8).withUnsafeBytes { try JSONParser.parse($0) }) ?? .null
    }
  }

  /// Writes `ready`, handles `inputs` in order, runs the effects, and returns the text written.
  private func run(
    _ inputs: [String], maxInstances: Int = Session.defaultMaxInstances,
    maxActiveInstances: Int = Session.defaultMaxActiveInstances
  ) -> String {
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let built = built
    let session = StoreActor.assumeIsolated {
      let session = Session.primes(
        recordingBuildsIn: built, dependencies: .slowAnswer, maxInstances: maxInstances,
        maxActiveInstances: maxActiveInstances)
      session.writeReady(version: "test")
      for (index, input) in inputs.enumerated() {
        Array(input.utf8).withUnsafeBytes { session.handleLine($0, lineNumber: index + 1) }
      }
      return session
    }
    executor.runUntilIdle()
    return StoreActor.assumeIsolated {
      var bytes: [UInt8] = []
      session.output.drain { bytes.append(contentsOf: $0) }
      return String(decoding: bytes, as: UTF8.self)
    }
  }

}

extension PrimesDependencies {
  /// An nth prime that never answers until cancelled: an effect that stays in flight.
  static let slowAnswer = PrimesDependencies(
    nthPrime: NthPrimeClient(largestN: 1_000) { _ in
      try await Task.sleep(for: .seconds(3600))
      return nil
    },
    favoritePrimes: FavoritePrimesStorage(load: { [] }, save: { _ in }),
    now: { 0 })
}

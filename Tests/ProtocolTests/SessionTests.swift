import ComposableCore
import ComposableTestSupport
import JSON
import PrimesFeature
@_spi(Hosting) import Protocol
import XCTest

/// The session builds each store when a line first needs it; the host cannot tell.
final class SessionTests: XCTestCase {
  private let built = LockedBox<[String]>([])
  private var builds: [String] { built.value }

  func testReadyAndDescribeBuildNoStore() {
    let lines = run([#"{"cmd":"describe"}"#])
    XCTAssertEqual(builds, [])
    XCTAssertEqual(lines.first?["stores"], ["primes", "other"])
    XCTAssertEqual(lines.last?["type"], "describe")
    XCTAssertEqual(lines.last?["stores"]?.arrayValue?.map { $0["name"] }, ["primes", "other"])
  }

  func testAStoreIsDescribedOnceWhenFirstAsked() {
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let descriptions = LockedBox(0)
    StoreActor.assumeIsolated {
      let output = OutputLines()
      let factory = StoreFactory(
        name: "walked",
        describe: {
          descriptions.withValue { $0 += 1 }
          return StoreDescriptor(name: "walked", summary: "", actions: [], stateSchema: [:])
        },
        make: { _, _ in fatalError("describing builds no store") })
      let session = Session(stores: [factory], output: output, sequence: ActionSequence())
      session.writeReady(version: "test")
      XCTAssertEqual(descriptions.value, 0, "ready needs only the names")
      Self.handle(#"{"cmd":"describe"}"#, in: session)
      Self.handle(#"{"cmd":"describe"}"#, in: session)
      XCTAssertEqual(descriptions.value, 1)
    }
  }

  func testTheFirstLineForAStoreBuildsItOnce() {
    let lines = run([
      #"{"store":"primes","action":"counter.incrTapped"}"#,
      #"{"store":"primes","action":"counter.incrTapped"}"#,
    ])
    XCTAssertEqual(builds, ["primes"])
    XCTAssertEqual(lines.count, 3)
    XCTAssertEqual(
      lines.last?["patch"],
      [
        ["op": "replace", "path": "/count", "value": 2],
        ["op": "replace", "path": "/isPrime", "value": true],
      ])
  }

  func testASnapshotBuildsTheStoreInItsInitialState() {
    let lines = run([#"{"cmd":"snapshot","store":"other"}"#])
    XCTAssertEqual(builds, ["other"])
    XCTAssertEqual(lines.last?["state"]?["count"], 0)
  }

  func testAnUnknownStoreBuildsNothing() {
    let lines = run([#"{"store":"nope","action":"counter.incrTapped"}"#])
    XCTAssertEqual(builds, [])
    XCTAssertEqual(lines.last?["code"], "unknown_store")
  }

  func testAStoreBuiltLaterIsToldWhenItBecomesIdle() {
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let idleCalls = LockedBox(0)
    let built = built
    let session = StoreActor.assumeIsolated {
      let session = Session.primes(recordingBuildsIn: built)
      session.onStoreIdle { idleCalls.withValue { $0 += 1 } }
      // nthPrimeButtonTapped starts an effect; its end makes the store idle.
      Self.handle(#"{"store":"primes","action":"counter.nthPrimeButtonTapped"}"#, in: session)
      return session
    }
    executor.runUntilIdle()
    withExtendedLifetime(session) {}
    XCTAssertEqual(builds, ["primes"])
    XCTAssertEqual(idleCalls.value, 1)
  }

  /// Writes `ready`, handles `inputs` in order, and returns every line written.
  private func run(_ inputs: [String], maxInstances: Int = Session.defaultMaxInstances)
    -> [JSONValue]
  {
    text(inputs, maxInstances: maxInstances).split(separator: "\n").map { line in
      (try? Array(line.utf8).withUnsafeBytes { try JSONParser.parse($0) }) ?? .null
    }
  }

  /// Writes `ready`, handles `inputs` in order, and returns the text written.
  private func text(_ inputs: [String], maxInstances: Int = Session.defaultMaxInstances)
    -> String
  {
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let built = built
    let bytes = StoreActor.assumeIsolated {
      let session = Session.primes(recordingBuildsIn: built, maxInstances: maxInstances)
      session.writeReady(version: "test")
      for (index, input) in inputs.enumerated() {
        Self.handle(input, in: session, lineNumber: index + 1)
      }
      var bytes: [UInt8] = []
      session.output.drain { bytes.append(contentsOf: $0) }
      return bytes
    }
    executor.runUntilIdle()
    return String(decoding: bytes, as: UTF8.self)
  }

  @StoreActor
  private static func handle(_ line: String, in session: Session, lineNumber: Int = 1) {
    Array(line.utf8).withUnsafeBytes { session.handleLine($0, lineNumber: lineNumber) }
  }

}

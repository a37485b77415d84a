import ComposableCore
import ComposableTestSupport
import JSON
import PrimesDefinition
import PrimesFeature
@_spi(Hosting) import Protocol
import Storage
import XCTest

/// Durable instances (`--state-dir`): what a session stores, when, and what it does when
/// storing fails; on SQLite in a temporary folder.
final class SessionDurabilityTests: XCTestCase {
  private var folder = ""

  override func setUp() {
    folder =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("durability-\(UUID().uuidString)").path
    StoreActor.install(executor: ManualExecutor())
  }

  override func tearDown() {
    try? FileManager.default.removeItem(atPath: folder)
  }

  func testEveryChangeIsReadBackInANewSessionAndSeqGoesOn() throws {
    let first = try DurableSession(folder)
    XCTAssertEqual(
      first.run([
        #"{"store":"primes","action":"counter.incrTapped"}"#,
        #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
        #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
      ]),
      [
        #"{"type":"action","store":"primes","seq":1,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":1}]}"#,
        #"{"type":"action","store":"primes","instance":"a","seq":2,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":1}]}"#,
        #"{"type":"action","store":"primes","instance":"a","seq":3,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":2},{"op":"replace","path":"/isPrime","value":true}]}"#,
      ])
    try first.close()

    let second = try DurableSession(folder)
    XCTAssertEqual(
      second.run([
        #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
        #"{"cmd":"instances","store":"primes"}"#,
        #"{"cmd":"instances","store":"other"}"#,
      ]),
      [
        #"{"type":"action","store":"primes","instance":"a","seq":4,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":3}]}"#,
        #"{"type":"instances","store":"primes","active":["a"],"passivated":[],"count":1}"#,
        #"{"type":"instances","store":"other","active":[],"passivated":[],"count":0}"#,
      ])
    XCTAssertEqual(second.count(nil), 1)
    try second.close()
  }

  func testAFailedCommitTakesBackItsLinesAndASnapshotAfterThemShowsWhatIsStored() throws {
    let session = try DurableSession(folder)
    _ = session.run([#"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#])
    session.storage.failsCommits = true
    XCTAssertEqual(
      session.run([
        #"{"store":"primes","instance":"a","action":"counter.incrTapped","id":1}"#,
        #"{"cmd":"snapshot","store":"primes","instance":"a","id":2}"#,
        #"{"cmd":"snapshot","store":"other","id":3}"#,
      ]),
      [
        #"{"type":"error","code":"storage_failed","store":"primes","instance":"a","action":{"type":"counter.incrTapped"},"id":1,"message":"primes \"a\": the change of counter.incrTapped could not be stored (the disk is full); it is back at its last stored state, and its effects were cancelled"}"#,
        #"{"type":"snapshot","store":"primes","instance":"a","seq":2,"id":2,"state":\#(DurableSession.initialState.replacingOccurrences(of: #""count":0"#, with: #""count":1"#))}"#,
        #"{"type":"snapshot","store":"other","seq":2,"id":3,"state":\#(DurableSession.initialState)}"#,
      ])
    session.storage.failsCommits = false
    XCTAssertEqual(session.count("a"), 1)
    XCTAssertEqual(
      session.run([#"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#]),
      [
        #"{"type":"action","store":"primes","instance":"a","seq":3,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":2},{"op":"replace","path":"/isPrime","value":true}]}"#
      ])
    try session.close()
  }

  func testAStoppedInstanceNamedAgainBeforeTheCommitGoesOnFromItsHostsState() throws {
    let session = try DurableSession(folder)
    XCTAssertEqual(
      session.run(
        [
          #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
          #"{"cmd":"stop","store":"primes","instance":"a"}"#,
          #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
        ]
      ).last,
      #"{"type":"action","store":"primes","instance":"a","seq":2,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":2},{"op":"replace","path":"/isPrime","value":true}]}"#
    )
    try session.close()
    XCTAssertEqual(try DurableSession(folder).count("a"), 2)
  }

  func testAnInstanceStoppedBeforeItsChangesAreStoredIsListedAsPassivated() throws {
    let session = try DurableSession(folder)
    XCTAssertEqual(
      session.run([
        #"{"store":"primes","instance":"b","action":"counter.incrTapped"}"#,
        #"{"cmd":"stop","store":"primes","instance":"b"}"#,
        #"{"cmd":"instances","store":"primes"}"#,
        #"{"cmd":"instances","store":"primes","after":"b"}"#,
      ]).suffix(2),
      [
        #"{"type":"instances","store":"primes","active":[],"passivated":["b"],"count":0}"#,
        #"{"type":"instances","store":"primes","active":[],"passivated":[],"count":0}"#,
      ])
    XCTAssertEqual(session.count("b"), 1)
    try session.close()
  }

  func testForgetDeletesTheInstanceAndANewOneMayTakeItsKeyInTheSameIteration() throws {
    let session = try DurableSession(folder)
    _ = session.run([
      #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
      #"{"store":"primes","instance":"b","action":"counter.incrTapped"}"#,
    ])
    XCTAssertEqual(
      session.run([
        #"{"cmd":"forget","store":"primes","instance":"a","id":1}"#,
        #"{"cmd":"snapshot","store":"primes","instance":"a","id":2}"#,
        #"{"cmd":"forget","store":"primes","instance":"a"}"#,
        #"{"cmd":"forget","store":"primes","instance":"a"}"#,
        #"{"cmd":"forget","store":"primes"}"#,
      ]),
      [
        #"{"type":"forgotten","store":"primes","instance":"a","id":1,"cancelledEffects":0}"#,
        #"{"type":"snapshot","store":"primes","instance":"a","seq":2,"id":2,"state":\#(DurableSession.initialState)}"#,
        #"{"type":"forgotten","store":"primes","instance":"a","cancelledEffects":0}"#,
        #"{"type":"error","code":"unknown_instance","store":"primes","instance":"a","line":4,"message":"forget: primes has no instance \"a\""}"#,
        #"{"type":"error","code":"invalid_command","line":5,"message":"forget: \"instance\" (the key of the instance to forget) is required"}"#,
      ])
    try session.close()
    let next = try DurableSession(folder)
    XCTAssertEqual(
      next.run([#"{"cmd":"instances","store":"primes"}"#]),
      [#"{"type":"instances","store":"primes","active":[],"passivated":["b"],"count":0}"#])
    try next.close()
  }

  func testAJournalLongerThanItsStateIsFoldedIntoASnapshotAndResumingReadsOnlyWhatFollows()
    throws
  {
    let session = try DurableSession(folder)
    let address = StoredAddress(store: "primes", instance: nil)
    _ = session.run([#"{"store":"primes","action":"counter.incrTapped"}"#])
    XCTAssertEqual(try session.storage.load(address)?.snapshot, nil)
    // Each action line is about 150 bytes: a journal passes 64 KiB within a thousand.
    _ = session.run(
      Array(repeating: #"{"store":"primes","action":"counter.incrTapped"}"#, count: 1_000))
    let stored = try XCTUnwrap(try session.storage.load(address))
    XCTAssertEqual(stored.batches, [])
    XCTAssertEqual(stored.nextBatch, 2)
    let snapshot = try JSONParser.parse(try XCTUnwrap(stored.snapshot))
    XCTAssertEqual(snapshot["count"], 1_001)
    let history = try XCTUnwrap(try session.storage.history(address))
    XCTAssertNil(history.base)
    XCTAssertEqual(history.batches.map(\.number), [0, 1])
    try session.close()
  }

  func testAStoreWhoseStoredStateFingerprintDiffersIsRefusedAndTheOthersWork() throws {
    let storage = try SQLiteInstanceStorage(folder: folder, fsync: .never)
    try storage.commit(
      [.stateFingerprint(store: "primes", #"{"count":"0000000000000000"}"#)], lastSequence: 0)
    try storage.close()
    let session = try DurableSession(folder)
    let lines = session.run([
      #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
      #"{"store":"other","action":"counter.incrTapped"}"#,
    ])
    XCTAssertEqual(lines.count, 2)
    XCTAssertTrue(
      lines[0].hasPrefix(
        #"{"type":"error","code":"stored_state_incompatible","store":"primes","instance":"a","line":1,"message":"primes: the state-dir holds its instances as a binary whose state differs stored them (state field activityFeed is new, "#
      ), lines[0])
    XCTAssertTrue(lines[1].hasPrefix(#"{"type":"action","store":"other","seq":1"#))
    try session.close()
  }

  func testIdleInstancesLeaveMemoryAfterTheirSweepsAndComeBackWithTheirState() throws {
    let session = try DurableSession(folder)
    _ = session.run([
      #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
      #"{"store":"primes","instance":"b","action":"counter.incrTapped"}"#,
    ])
    StoreActor.assumeIsolated { session.session.passivateIdleInstances(unusedForSweeps: 2) }
    _ = session.run([#"{"store":"primes","instance":"b","action":"counter.incrTapped"}"#])
    StoreActor.assumeIsolated { session.session.passivateIdleInstances(unusedForSweeps: 2) }
    XCTAssertEqual(
      session.run([#"{"cmd":"instances","store":"primes"}"#]),
      [#"{"type":"instances","store":"primes","active":["b"],"passivated":["a"],"count":1}"#])
    XCTAssertEqual(session.count("a"), 1)
    XCTAssertEqual(session.count("b"), 2)
    try session.close()
  }

  func testAnInstanceAnotherProcessHasIsRefusedWithItsOwner() throws {
    let session = try DurableSession(folder)
    session.storage.owners[
      StoredAddress(store: "primes", instance: try InstanceKey(validating: "x"))] = "p2"
    XCTAssertEqual(
      session.run([#"{"store":"primes","instance":"x","action":"counter.incrTapped","id":3}"#]),
      [
        #"{"type":"error","code":"instance_elsewhere","store":"primes","instance":"x","line":1,"id":3,"owner":"p2","message":"primes \"x\": primes \"x\" is active in p2"}"#
      ])
    XCTAssertEqual(
      session.run([#"{"cmd":"instances","store":"primes"}"#]),
      [#"{"type":"instances","store":"primes","active":[],"passivated":[],"count":0}"#])
    try session.close()
  }

  func testAnInstanceTakenOverElsewhereLosesItsChangeAloneAndTheOthersAreStored() throws {
    let session = try DurableSession(folder)
    _ = session.run([
      #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
      #"{"store":"primes","instance":"b","action":"counter.incrTapped"}"#,
    ])
    session.storage.owners[
      StoredAddress(store: "primes", instance: try InstanceKey(validating: "a"))] = "p2"
    XCTAssertEqual(
      session.run([
        #"{"store":"primes","instance":"a","action":"counter.incrTapped","id":1}"#,
        #"{"store":"primes","instance":"b","action":"counter.incrTapped","id":2}"#,
      ]),
      [
        #"{"type":"action","store":"primes","instance":"b","seq":4,"id":2,"source":"host","action":{"type":"counter.incrTapped"},"patch":[{"op":"replace","path":"/count","value":2},{"op":"replace","path":"/isPrime","value":true}]}"#,
        #"{"type":"error","code":"instance_elsewhere","store":"primes","instance":"a","action":{"type":"counter.incrTapped"},"id":1,"owner":"p2","message":"primes \"a\": the change of counter.incrTapped could not be stored (primes \"a\" is active in p2); it is back at its last stored state, and its effects were cancelled"}"#,
      ])
    // a left memory, and is released with the next commit.
    XCTAssertEqual(session.run([]), [])
    XCTAssertEqual(
      session.storage.committed.last,
      [.release(StoredAddress(store: "primes", instance: try InstanceKey(validating: "a")))])
    session.storage.owners = [:]
    XCTAssertEqual(session.count("a"), 1)
    XCTAssertEqual(session.count("b"), 2)
    try session.close()
  }

  func testAnInstanceLeavingMemoryIsReleasedWithTheCommitThatStoresItsChanges() throws {
    let session = try DurableSession(folder)
    _ = session.run([
      #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
      #"{"cmd":"stop","store":"primes","instance":"a"}"#,
    ])
    let a = StoredAddress(store: "primes", instance: try InstanceKey(validating: "a"))
    XCTAssertEqual(session.storage.committed.count, 1)
    XCTAssertEqual(session.storage.committed[0].count, 3)
    XCTAssertEqual(session.storage.committed[0].last, .release(a))
    // Named again before a commit, it is not released.
    _ = session.run([
      #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
      #"{"cmd":"stop","store":"primes","instance":"a"}"#,
      #"{"store":"primes","instance":"a","action":"counter.incrTapped"}"#,
    ])
    XCTAssertFalse(session.storage.committed[1].contains(.release(a)))
    try session.close()
  }
}

/// A session of the stores "primes" and "other" (both the primes feature) kept in a folder.
/// Unchecked: a test uses it on its one thread, where the store actor runs too.
private final class DurableSession: @unchecked Sendable {
  let storage: FailingStorage
  let session: Session

  /// The primes feature's initial state as a snapshot line writes it.
  static let initialState =
    #"{"count":0,"favoritePrimes":[],"activityFeed":[],"alertNthPrime":null,"alertNthPrimeFailure":null,"nthPrimeRequest":null,"isNthPrimeButtonDisabled":false,"isPrime":false,"isFavorite":false,"storageError":null}"#

  init(_ folder: String) throws {
    let storage = FailingStorage(try SQLiteInstanceStorage(folder: folder, fsync: .never))
    self.storage = storage
    session = StoreActor.assumeIsolated {
      let output = OutputLines()
      let durability = Durability(storage: storage, now: { 0 })
      let sequence = ActionSequence(last: durability.lastSequence)
      let coding = StoredStateCoding(
        initialState: { try? JSONValueEncoder().encode(PrimesState()) },
        stateSchema: { TypeSchema.of(value: PrimesState()) },
        decode: { json in try JSONValueDecoder().decode(PrimesState.self, from: json) })
      let factories = ["primes", "other"].map { name in
        let descriptor = StoreDescriptor(
          name: name, summary: "", actions: PrimesStore.actions, stateSchema: [:])
        return StoreFactory(name: name, describe: { descriptor }, storedState: coding) {
          instance, state in
          StoreHost(
            store: Store(
              initialState: state as? PrimesState ?? PrimesState(),
              reducer: PrimesReducer(dependencies: .instant)),
            descriptor: descriptor,
            output: StoreOutput(lines: output, sequence: sequence, mode: .actions).about(instance))
        }
      }
      return Session(
        stores: factories, output: output, sequence: sequence, durability: durability)
    }
  }

  /// Handles `inputs` as one loop iteration does: the lines, then the commit, then the output.
  func run(_ inputs: [String]) -> [String] {
    StoreActor.assumeIsolated {
      for (index, input) in inputs.enumerated() {
        Array(input.utf8).withUnsafeBytes { session.handleLine($0, lineNumber: index + 1) }
      }
      session.endTick()
      session.commitChanges()
      var bytes: [UInt8] = []
      session.output.drain { bytes.append(contentsOf: $0) }
      return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }
  }

  func count(_ instance: String?) -> JSONValue? {
    let key = instance.map { #","instance":"\#($0)""# } ?? ""
    let line = run([#"{"cmd":"snapshot","store":"primes"\#(key)}"#])[0]
    return (try? JSONParser.parse(line))?["state"]?["count"]
  }

  func close() throws {
    try storage.close()
  }
}

/// SQLite storage whose commits fail while `failsCommits` is set, as a full disk fails them;
/// and which claims instances as storage shared by several processes does, refusing those
/// `owners` gives to another process.
private final class FailingStorage: InstanceStorage, @unchecked Sendable {
  private let storage: SQLiteInstanceStorage
  var failsCommits = false
  var owners: [StoredAddress: String] = [:]
  /// The changes of every commit that succeeded.
  var committed: [[StoredChange]] = []

  var claimsInstances: Bool { true }

  func activate(_ address: StoredAddress) throws(InstanceStorageError) -> StoredInstance? {
    if let owner = owners[address] { throw elsewhere(address, owner) }
    return try storage.load(address)
  }

  private func elsewhere(_ address: StoredAddress, _ owner: String) -> InstanceStorageError {
    InstanceStorageError(
      .elsewhere(owner: owner), "\(address) is active in \(owner)", address: address)
  }

  init(_ storage: SQLiteInstanceStorage) {
    self.storage = storage
  }

  var lastSequence: Int { storage.lastSequence }

  func load(_ address: StoredAddress) throws(InstanceStorageError) -> StoredInstance? {
    try storage.load(address)
  }

  func commit(_ changes: [StoredChange], lastSequence: Int) throws(InstanceStorageError) {
    if failsCommits { throw InstanceStorageError(.full, "the disk is full") }
    for case .append(let address, _) in changes {
      if let owner = owners[address] { throw elsewhere(address, owner) }
    }
    try storage.commit(changes, lastSequence: lastSequence)
    committed.append(changes)
  }

  func keys(of store: String, after: InstanceKey?, limit: Int) throws(InstanceStorageError)
    -> [InstanceKey]
  {
    try storage.keys(of: store, after: after, limit: limit)
  }

  func history(_ address: StoredAddress) throws(InstanceStorageError) -> StoredHistory? {
    try storage.history(address)
  }

  func stateFingerprint(of store: String) throws(InstanceStorageError) -> String? {
    try storage.stateFingerprint(of: store)
  }

  func periodicWork() -> (@Sendable () -> Void)? { storage.periodicWork() }

  func close() throws(InstanceStorageError) { try storage.close() }
}

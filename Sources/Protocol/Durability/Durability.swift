import ComposableCore
@_spi(Hosting) import JSON

/// Keeps a session's instances in an ``InstanceStorage`` (`run --state-dir`): every change is
/// stored before the line that shows it is written, an instance not in memory is read back on
/// the first line that needs it, and a forgotten one is deleted.
///
/// The runtime calls ``commit(_:)`` once per loop iteration, before it hands the iteration's
/// output to stdout: one transaction stores every instance's pending lines. When it fails,
/// those lines are taken back out of the output, each instance they belong to leaves memory
/// (its effects cancelled), and an error line says so; the next line that names it reads it
/// back as it was last stored.
@StoreActor
@_spi(Hosting)
public final class Durability {
  public let storage: any InstanceStorage
  /// Milliseconds since the Unix epoch (since start under the virtual clock): a batch's time.
  private let now: () -> Int
  /// The journals with changes since the last commit, in the order they began to change.
  private var changed: [InstanceJournal] = []
  /// The journals with changes of instances stopped since the last commit: an instance named
  /// again before it goes on from its host's state, not from what is stored.
  private var stoppedWithChanges: [StoredAddress: InstanceJournal] = [:]
  /// Instances forgotten since the last commit, with the spans of the lines that said so and
  /// the ids of the commands.
  private var forgotten: [(address: StoredAddress, span: Range<Int>, id: MessageID?)] = []
  /// The stores whose state fingerprint was checked in this process: nil when it matched (or
  /// is recorded with the next commit), the refusal when it did not.
  private var checkedStores: [String: ProtocolError?] = [:]
  /// Instances that left memory, to release with the next commit that succeeds (storage that
  /// claims instances only): until then no other process can claim them.
  private var released: Set<StoredAddress> = []
  private var fingerprintsToRecord: [String: String] = [:]

  /// A journal as long as this is never worth a snapshot: writing the state more often than
  /// every 64 KiB of lines would cost a small store more than its lines do.
  static let minimumJournalBytes = 64 * 1024
  /// Past it, a snapshot is due once the journal is this many times the state's JSON: a
  /// snapshot encodes the whole state, at several times the cost per byte of the lines it
  /// replaces, and at one state's worth of lines each action paid a share of that encoding that
  /// grew with the state (35k instructions at a 60 KB primes state). Resuming reads at most
  /// this many states' worth of lines.
  static let journalToStateRatio = 4

  public init(storage: any InstanceStorage, now: @escaping () -> Int) {
    self.storage = storage
    self.now = now
  }

  /// The `seq` the session's numbering goes on from.
  public var lastSequence: Int { storage.lastSequence }

  func journalHasChanges(_ journal: InstanceJournal) {
    changed.append(journal)
  }

  /// The instance's stored state as JSON (nil when nothing is stored, and it starts in the
  /// store's initial state) and the journal its host keeps. Throws when the state cannot be
  /// read back: the instance is not activated, and the other instances are not affected.
  func resume(_ address: StoredAddress, of factory: StoreFactory) throws(ProtocolError)
    -> (state: JSONValue?, journal: InstanceJournal)
  {
    try checkFingerprint(of: factory)
    released.remove(address)
    if let pending = stoppedWithChanges.removeValue(forKey: address) {
      return (pending.host?.snapshot(), pending)
    }
    if forgotten.contains(where: { $0.address == address }) {
      return (nil, InstanceJournal(address: address, durability: self))
    }
    let stored: StoredInstance?
    do {
      stored = try storage.activate(address)
    } catch {
      if case .elsewhere(let owner) = error.kind {
        throw ProtocolError(
          .instanceElsewhere, "\(address): \(error.message)", owner: owner.isEmpty ? nil : owner)
      }
      throw ProtocolError(
        .storageFailed, "\(address): its stored state cannot be read: \(error.message)")
    }
    guard let stored else { return (nil, InstanceJournal(address: address, durability: self)) }
    var state: JSONValue
    do {
      if let snapshot = stored.snapshot {
        state = try JSONParser.parse(snapshot, maxDepth: Self.maxStoredDepth)
      } else {
        guard let initial = factory.storedState?.initialState() else {
          throw ProtocolError(
            .storageFailed, "\(address): the store's initial state has no JSON to resume from")
        }
        state = initial
      }
      for batch in stored.batches {
        state = try Self.applying(batch, to: state)
      }
    } catch let error as ProtocolError {
      throw error
    } catch {
      throw ProtocolError(
        .storageFailed, "\(address): its stored state is damaged: \(error)")
    }
    let journalBytes = stored.batches.reduce(0) { $0 + $1.lines.count }
    let journal = InstanceJournal(
      address: address, durability: self, nextBatch: stored.nextBatch,
      bytesSinceSnapshot: journalBytes, snapshotBytes: stored.snapshot?.count ?? 0)
    return (state, journal)
  }

  /// Stored states nest as deep as a store's state does, which no input line limits.
  static let maxStoredDepth = 10_000

  /// `state` with the patches of the batch's lines applied in order.
  static func applying(_ batch: StoredBatch, to state: JSONValue) throws -> JSONValue {
    var state = state
    var start = batch.lines.startIndex
    while start < batch.lines.endIndex {
      let end = batch.lines[start...].firstIndex(of: UInt8(ascii: "\n")) ?? batch.lines.endIndex
      let line = try batch.lines[start..<end].withUnsafeBytes { bytes in
        try JSONParser.parse(bytes, maxDepth: maxStoredDepth)
      }
      guard case .array(let operations)? = line["patch"] else {
        throw ProtocolError(.storageFailed, "a stored line of batch \(batch.number) has no patch")
      }
      state = try JSONPatch.apply(
        operations.map { operation throws(JSONPatchError) in
          try JSONPatchOperation(json: operation)
        }, to: state)
      start = end + 1
    }
    return state
  }

  /// Called when an instance's host leaves memory, whatever the reason: its pending changes
  /// are still stored with the next commit, which also releases it.
  func stopped(_ journal: InstanceJournal) {
    if journal.hasPendingChanges { stoppedWithChanges[journal.address] = journal }
    if storage.claimsInstances { released.insert(journal.address) }
  }

  /// Whether the instance is stored (or was, before a forget not yet committed).
  func isStored(_ address: StoredAddress) throws(ProtocolError) -> Bool {
    guard !forgotten.contains(where: { $0.address == address }) else { return false }
    do {
      return try storage.load(address) != nil
    } catch {
      throw ProtocolError(.storageFailed, "\(address): \(error.message)")
    }
  }

  /// Deletes the instance with the next commit; `span` is the output line that says so.
  func forget(_ address: StoredAddress, span: Range<Int>, id: MessageID?) {
    stoppedWithChanges.removeValue(forKey: address)?.isForgotten = true
    forgotten.append((address, span, id))
  }

  /// Up to `limit` keys of the store's stored named instances from just past `after`: those
  /// committed, less the ones forgotten since, and those stopped with changes the next commit
  /// stores.
  func storedKeys(of store: String, after: InstanceKey?, limit: Int) throws(ProtocolError)
    -> [InstanceKey]
  {
    var keys: [InstanceKey]
    do {
      keys = try storage.keys(of: store, after: after, limit: limit).filter { key in
        !forgotten.contains { $0.address == StoredAddress(store: store, instance: key) }
      }
    } catch {
      throw ProtocolError(
        .storageFailed, "\(store): its stored instances cannot be listed: \(error.message)")
    }
    let pending = stoppedWithChanges.keys.compactMap { address in
      address.store == store ? address.instance : nil
    }.filter { key in after.map { key > $0 } ?? true }
    guard !pending.isEmpty else { return keys }
    keys = Array(Set(keys).union(pending)).sorted()
    return Array(keys.prefix(limit))
  }

  /// Refuses every instance of a store whose stored state was written by a binary whose state
  /// schema differs: read back, it could decode into a wrong state.
  private func checkFingerprint(of factory: StoreFactory) throws(ProtocolError) {
    if let checked = checkedStores[factory.name] {
      if let refusal = checked { throw refusal }
      return
    }
    let current = StoreFingerprint.stateDigests(factory.storedState?.stateSchema() ?? [:])
    let stored: String?
    do {
      stored = try storage.stateFingerprint(of: factory.name)
    } catch {
      throw ProtocolError(
        .storageFailed, "\(factory.name): the stored fingerprint cannot be read: \(error.message)")
    }
    guard let stored else {
      fingerprintsToRecord[factory.name] = StoreFingerprint.stateText(current)
      checkedStores[factory.name] = .some(nil)
      return
    }
    let differences = StoreFingerprint.stateDifferences(stored: stored, current: current)
    guard !differences.isEmpty else {
      checkedStores[factory.name] = .some(nil)
      return
    }
    let refusal = ProtocolError(
      .storedStateIncompatible,
      "\(factory.name): the state-dir holds its instances as a binary whose state differs "
        + "stored them (\(differences.joined(separator: ", "))): reading them back could give "
        + "a wrong state. Run the binary that stored them, or start with another --state-dir")
    checkedStores[factory.name] = .some(refusal)
    throw refusal
  }

  /// Stores every pending change in one transaction. On failure, takes the lines of the
  /// changes back out of `output`, writes an error line for each instance instead, and returns
  /// the addresses of the instances whose in-memory state is now ahead of what is stored: the
  /// session takes them out of memory. A failure that is one instance's alone (another process
  /// took it over) takes back that instance's changes only, and the others are committed
  /// without them.
  func commit(_ output: OutputLines, lastSequence: Int) -> [StoredAddress] {
    var fenced: [StoredAddress] = []
    // The lines of the instances taken back one by one, removed from the output at the end:
    // removing them at once would move the other pending lines' spans.
    var fencedSpans: [Range<Int>] = []
    defer { output.remove(fencedSpans.sorted { $0.lowerBound < $1.lowerBound }) }
    while !changed.isEmpty || !forgotten.isEmpty || !fingerprintsToRecord.isEmpty
      || !released.isEmpty
    {
      let (changes, snapshots) = pendingChanges()
      do {
        try storage.commit(changes, lastSequence: lastSequence)
      } catch {
        if let address = error.address,
          let spans = takeBack(address, from: output, because: error)
        {
          fenced.append(address)
          fencedSpans += spans
          continue
        }
        let lost = takeBack(output, because: error)
        fencedSpans += lost.spans
        return fenced + lost.addresses
      }
      released.removeAll()
      for journal in changed where !journal.isForgotten {
        journal.bytesSinceSnapshot += journal.lines.count
        journal.nextBatch += 1
      }
      for (journal, bytes) in snapshots {
        journal.bytesSinceSnapshot = 0
        journal.snapshotBytes = bytes
      }
      endBatch()
      fingerprintsToRecord.removeAll()
      break
    }
    return fenced
  }

  /// What a commit stores: the fingerprints to record, the forgets, each changed journal's
  /// batch (and a snapshot where one is due), and the releases; with the snapshots' sizes.
  private func pendingChanges() -> ([StoredChange], [(InstanceJournal, Int)]) {
    var changes: [StoredChange] = []
    changes.reserveCapacity(
      forgotten.count + 2 * changed.count + fingerprintsToRecord.count + released.count)
    for (store, fingerprint) in fingerprintsToRecord {
      changes.append(.stateFingerprint(store: store, fingerprint))
    }
    for (address, _, _) in forgotten { changes.append(.forget(address)) }
    let time = now()
    var snapshots: [(InstanceJournal, Int)] = []
    for journal in changed where !journal.isForgotten {
      changes.append(
        .append(
          journal.address,
          StoredBatch(number: journal.nextBatch, time: time, lines: journal.lines)))
      let journalBytes = journal.bytesSinceSnapshot + journal.lines.count
      if journalBytes
        > max(Self.minimumJournalBytes, Self.journalToStateRatio * journal.snapshotBytes),
        let host = journal.host
      {
        let state = host.snapshot().serialized
        changes.append(.snapshot(journal.address, state: state, nextBatch: journal.nextBatch + 1))
        snapshots.append((journal, state.count))
      }
    }
    for address in released { changes.append(.release(address)) }
    return (changes, snapshots)
  }

  /// Takes back the pending changes of one instance (its lines, or its forget), for a failure
  /// that is its alone, writing its error lines; answers the spans of the output lines to
  /// remove, nil when nothing pending is about it.
  private func takeBack(
    _ address: StoredAddress, from output: OutputLines, because error: InstanceStorageError
  ) -> [Range<Int>]? {
    if let index = changed.firstIndex(where: { $0.address == address && !$0.isForgotten }) {
      let journal = changed.remove(at: index)
      let spans = journal.outputSpans
      reportLostLines(of: journal, to: output, because: error)
      journal.reset()
      return spans
    }
    if let index = forgotten.firstIndex(where: { $0.address == address }) {
      let (_, span, id) = forgotten.remove(at: index)
      reportForget(of: address, id: id, to: output, because: error)
      return [span]
    }
    return nil
  }

  /// Takes back every pending change, writing their error lines; answers the spans of the
  /// output lines to remove and the instances now ahead of what is stored.
  private func takeBack(_ output: OutputLines, because error: InstanceStorageError)
    -> (spans: [Range<Int>], addresses: [StoredAddress])
  {
    let lost = changed.filter { !$0.isForgotten }
    let spans = lost.flatMap(\.outputSpans) + forgotten.map(\.span)
    for journal in lost {
      reportLostLines(of: journal, to: output, because: error)
    }
    for (address, _, id) in forgotten {
      reportForget(of: address, id: id, to: output, because: error)
    }
    endBatch()
    return (spans, lost.map(\.address))
  }

  private func reportForget(
    of address: StoredAddress, id: MessageID?, to output: OutputLines,
    because error: InstanceStorageError
  ) {
    let (code, owner) = Self.code(of: error)
    output.error(
      ProtocolError(
        code, "\(address): forget could not be stored (\(error.message)); it is still stored",
        owner: owner),
      line: nil, id: id, store: address.store, instance: address.instance)
  }

  /// An error line for each action whose line was taken back, with its `id`, so that a host
  /// waiting for the line hears what became of its action; one for the instance when its lines
  /// were `state` lines, which carry no action.
  private func reportLostLines(
    of journal: InstanceJournal, to output: OutputLines, because error: InstanceStorageError
  ) {
    let address = journal.address
    let what = "it is back at its last stored state, and its effects were cancelled"
    let (code, owner) = Self.code(of: error)
    var reportedInstance = false
    for line in journal.lines.split(separator: UInt8(ascii: "\n")) {
      let parsed = line.withUnsafeBytes { try? JSONParser.parse($0, maxDepth: Self.maxStoredDepth) }
      if let parsed, parsed["type"] == "action", let action = parsed["action"] {
        let id = parsed["id"].flatMap { id in line.withUnsafeBytes { MessageID(id, in: $0) } }
        output.actionError(
          code, store: address.store, instance: address.instance, action: action,
          id: id,
          message:
            "\(address): the change of \(action["type"]?.stringValue ?? action.stringValue ?? "an action") "
            + "could not be stored (\(error.message)); \(what)", owner: owner)
      } else if !reportedInstance {
        reportedInstance = true
        output.instanceError(
          ProtocolError(
            code,
            "\(address): its last changes could not be stored (\(error.message)); \(what)",
            owner: owner),
          store: address.store, instance: address.instance)
      }
    }
  }

  /// `instance_elsewhere` with the owner when another process has the instance, else
  /// `storage_failed`.
  private static func code(of error: InstanceStorageError) -> (ErrorCode, String?) {
    if case .elsewhere(let owner) = error.kind {
      return (.instanceElsewhere, owner.isEmpty ? nil : owner)
    }
    return (.storageFailed, nil)
  }

  private func endBatch() {
    for journal in changed { journal.reset() }
    changed.removeAll(keepingCapacity: true)
    stoppedWithChanges.removeAll()
    forgotten.removeAll()
  }
}

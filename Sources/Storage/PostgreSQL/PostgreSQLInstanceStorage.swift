@_spi(Hosting) import Protocol

/// Durable instances in PostgreSQL (`run --state-url postgresql://…`), shared by every process
/// given the same database: each claims an instance when it activates it and releases it when
/// the instance leaves memory, so that an instance is active in one process at a time (see
/// `PostgresSchema` for the claims, the leases and the fencing of a process that lost one).
///
/// Every call is one round trip on the loop thread, bounded by a timeout: a commit sends its
/// changes as one pipeline, which the server runs as one transaction. What is committed is
/// durable as the server's own settings make it (`synchronous_commit`): `--fsync` is SQLite's.
package final class PostgreSQLInstanceStorage: InstanceStorage {
  /// A process that keeps instances: its `--process-id`, the incarnation this start got, and
  /// how long its claims outlive its last sign of life.
  struct Process {
    let id: String
    let incarnation: Int
    let lease: Duration
  }

  package private(set) var lastSequence: Int = 0
  package var claimsInstances: Bool { process != nil }
  private let connection: PostgresConnection
  /// Nil for a reader (`export`), which claims nothing and commits nothing.
  private let process: Process?
  /// False for a reader of a database without the tables, which then has nothing stored.
  private let hasTables: Bool
  /// When the lease was last renewed (a commit renews it too), on the monotonic clock.
  private var renewed = ContinuousClock.now
  private var closed = false

  /// How long a statement may go unanswered before the call fails and the connection is
  /// dropped (the next call opens a new one).
  package static let timeout = Duration.seconds(5)

  /// Connects to `url` and makes or checks the tables. With `processID`, starts that process:
  /// its incarnation goes up by one, which fences off an earlier one still running, and its
  /// instances are its own again at once; `seq` goes on from its last one. Without it, the
  /// storage only reads, and creates nothing. Throws `.unavailable` when the server cannot be reached, `.readOnly`
  /// when the role may not create the tables, and `.other` when a newer version made them.
  package init(url: String, processID: String?, lease: Duration = .seconds(10))
    throws(InstanceStorageError)
  {
    connection = try PostgresConnection(url: url, timeout: Self.timeout)
    let server = connection.server
    if processID == nil {
      // A reader creates nothing: a database without the tables has nothing stored.
      let found = try connection.run(
        [.init("SELECT (to_regclass('composable_actor.meta') IS NOT NULL)::int::int8")],
        "look for the tables in \(server)")
      guard found[0].count == 1, found[0].int(0, 0) == 1 else {
        hasTables = false
        process = nil
        return
      }
    }
    hasTables = true
    let prepared = try connection.run(
      (processID == nil ? [] : PostgresSchema.prepare.map { .init($0) }) + [
        .init("SELECT value FROM composable_actor.meta WHERE key = 'format'"),
        .init("SELECT value FROM composable_actor.meta WHERE key = 'definitions'"),
      ], "prepare the tables in \(server)")
    let format =
      prepared[prepared.count - 2].count > 0 ? prepared[prepared.count - 2].text(0, 0) : nil
    let definitions =
      prepared[prepared.count - 1].count > 0 ? prepared[prepared.count - 1].text(0, 0) : nil
    guard let format, let number = Int(format) else {
      throw InstanceStorageError(
        .corrupt, "cannot open \(server): its composable_actor.meta table has no format")
    }
    guard number <= PostgresSchema.format else {
      throw InstanceStorageError(
        .other,
        "cannot open \(server): a newer version wrote it (state format \(number); this version "
          + "reads format \(PostgresSchema.format))")
    }
    guard let processID else {
      process = nil
      return
    }
    // Replacing the functions takes most of a start's time: only when they are not this
    // version's.
    if definitions != PostgresSchema.definitionsDigest {
      _ = try connection.run(
        PostgresSchema.create.map { .init($0) } + [
          .init(
            """
            INSERT INTO composable_actor.meta (key, value) VALUES ('definitions', $1)
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
            """, .text(PostgresSchema.definitionsDigest))
        ], "create the tables in \(server)")
    }
    let milliseconds =
      Int(lease.components.seconds) * 1000
      + Int(lease.components.attoseconds / 1_000_000_000_000_000)
    let started = try connection.run(
      [
        .init(
          "SELECT incarnation, last_sequence FROM composable_actor.start_process($1, $2)",
          .text(processID), .int(milliseconds))
      ], "start process \"\(processID)\" in \(server)")
    guard let row = started.first, row.count == 1, let incarnation = row.int(0, 0),
      let last = row.int(0, 1)
    else {
      throw InstanceStorageError(.other, "cannot start process \"\(processID)\" in \(server)")
    }
    process = Process(id: processID, incarnation: incarnation, lease: lease)
    lastSequence = last
  }

  private func owner(_ operation: @autoclosure () -> String) -> Process {
    guard let process, !closed else {
      preconditionFailure("\(operation()): the storage is closed or only reads")
    }
    return process
  }

  private func ownerParameters(_ process: Process) -> [PostgresConnection.Parameter] {
    [.text(process.id), .int(process.incarnation)]
  }

  private static func addressParameters(_ address: StoredAddress) -> [PostgresConnection.Parameter]
  {
    [.text(address.store), .text(address.instance?.value ?? "")]
  }

  /// The latest snapshot and the batches since, read in the statements after `first`.
  private func read(
    _ address: StoredAddress, after first: [PostgresConnection.Statement],
    _ operation: @autoclosure () -> String
  ) throws(InstanceStorageError) -> StoredInstance? {
    let key = Self.addressParameters(address)
    let rows = try connection.run(
      first + [
        .init(
          """
          SELECT batch, state FROM composable_actor.snapshots WHERE store = $1 AND instance = $2
          ORDER BY batch DESC LIMIT 1
          """, parameters: key),
        .init(
          """
          SELECT number, time, lines FROM composable_actor.batches
          WHERE store = $1 AND instance = $2 AND number >= coalesce((
            SELECT max(batch) FROM composable_actor.snapshots
            WHERE store = $1 AND instance = $2), 0)
          ORDER BY number
          """, parameters: key),
      ], operation())
    let snapshotRows = rows[first.count]
    let snapshot =
      snapshotRows.count > 0 ? (snapshotRows.int(0, 0) ?? 0, snapshotRows.bytes(0, 1) ?? []) : nil
    let batches = Self.batches(rows[first.count + 1])
    guard snapshot != nil || !batches.isEmpty else { return nil }
    return StoredInstance(
      snapshot: snapshot?.1, batches: batches,
      nextBatch: max(batches.last.map { $0.number + 1 } ?? 0, snapshot?.0 ?? 0))
  }

  private static func batches(_ rows: PostgresConnection.Rows) -> [StoredBatch] {
    (0..<rows.count).map { row in
      StoredBatch(
        number: rows.int(row, 0) ?? 0, time: rows.int(row, 1) ?? 0, lines: rows.bytes(row, 2) ?? [])
    }
  }

  package func load(_ address: StoredAddress) throws(InstanceStorageError) -> StoredInstance? {
    guard hasTables else { return nil }
    return try read(address, after: [], "load \(address) from \(connection.server)")
  }

  /// Claims the instance and reads it in one round trip and one transaction: a claim refused
  /// reads nothing.
  package func activate(_ address: StoredAddress) throws(InstanceStorageError) -> StoredInstance? {
    let process = owner("activate \(address)")
    return try read(
      address,
      after: [
        .init(
          "SELECT composable_actor.claim($1, $2, $3, $4)",
          parameters: Self.addressParameters(address) + ownerParameters(process))
      ], "activate \(address) in \(connection.server)")
  }

  package func commit(_ changes: [StoredChange], lastSequence: Int) throws(InstanceStorageError) {
    let process = owner("commit")
    let me = ownerParameters(process)
    var statements: [PostgresConnection.Statement] = []
    statements.reserveCapacity(changes.count + 1)
    for change in changes {
      switch change {
      case .append(let address, let batch):
        statements.append(
          .init(
            "SELECT composable_actor.append($1, $2, $3, $4, $5, $6, $7)",
            parameters: Self.addressParameters(address) + [
              .int(batch.number), .int(batch.time), .bytes(batch.lines),
            ] + me, about: address))
      case .snapshot(let address, let state, let nextBatch):
        statements.append(
          .init(
            "SELECT composable_actor.snapshot($1, $2, $3, $4, $5, $6)",
            parameters: Self.addressParameters(address) + [.bytes(state), .int(nextBatch)] + me,
            about: address))
      case .forget(let address):
        statements.append(
          .init(
            "SELECT composable_actor.forget($1, $2, $3, $4)",
            parameters: Self.addressParameters(address) + me, about: address))
      case .stateFingerprint(let store, let fingerprint):
        statements.append(
          .init(
            """
            INSERT INTO composable_actor.meta (key, value) VALUES ('fingerprint:' || $1, $2)
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
            """, .text(store), .text(fingerprint)))
      case .release(let address):
        statements.append(
          .init(
            "SELECT composable_actor.release($1, $2, $3, $4)",
            parameters: Self.addressParameters(address) + me))
      }
    }
    statements.append(
      .init(
        "SELECT composable_actor.finish_commit($1, $2, $3)", parameters: me + [.int(lastSequence)]))
    _ = try connection.run(statements, "commit to \(connection.server)")
    self.lastSequence = lastSequence
    renewed = ContinuousClock.now
  }

  package func keys(of store: String, after: InstanceKey?, limit: Int) throws(InstanceStorageError)
    -> [InstanceKey]
  {
    guard limit > 0, hasTables else { return [] }
    let operation = "list the instances of \(store) in \(connection.server)"
    let rows = try connection.run(
      [
        .init(
          """
          SELECT instance FROM composable_actor.instances WHERE store = $1 AND instance > $2
          ORDER BY instance LIMIT $3
          """, .text(store), .text(after?.value ?? ""), .int(limit))
      ], operation)[0]
    return try (0..<rows.count).map { row throws(InstanceStorageError) in
      guard let text = rows.text(row, 0), let key = try? InstanceKey(validating: text) else {
        throw InstanceStorageError(.corrupt, "cannot \(operation): a stored key is invalid")
      }
      return key
    }
  }

  /// As SQLite's (see `Database.history`).
  package func history(_ address: StoredAddress) throws(InstanceStorageError) -> StoredHistory? {
    guard hasTables else { return nil }
    let key = Self.addressParameters(address)
    let rows = try connection.run(
      [
        .init(
          """
          SELECT batch, state FROM composable_actor.snapshots WHERE store = $1 AND instance = $2
          ORDER BY batch LIMIT 2
          """, parameters: key),
        .init(
          """
          SELECT number, time, lines FROM composable_actor.batches
          WHERE store = $1 AND instance = $2 ORDER BY number
          """, parameters: key),
      ], "read the history of \(address) in \(connection.server)")
    let snapshots = (0..<rows[0].count).map {
      (rows[0].int($0, 0) ?? 0, rows[0].bytes($0, 1) ?? [])
    }
    let all = Self.batches(rows[1])
    var base = snapshots.first
    if snapshots.count == 1, let only = base, only.0 > 0, all.first?.number == 0 { base = nil }
    let batches = all.filter { $0.number >= base?.0 ?? 0 }
    guard !snapshots.isEmpty || !batches.isEmpty else { return nil }
    return StoredHistory(base: base?.1, batches: batches)
  }

  package func stateFingerprint(of store: String) throws(InstanceStorageError) -> String? {
    guard hasTables else { return nil }
    let rows = try connection.run(
      [
        .init(
          "SELECT value FROM composable_actor.meta WHERE key = 'fingerprint:' || $1", .text(store))
      ],
      "read the state fingerprint of \(store) in \(connection.server)")[0]
    return rows.count > 0 ? rows.text(0, 0) : nil
  }

  /// Renews the lease when no commit did in the last second: a round trip on the loop thread
  /// about once a second while the process is idle. A renewal that fails is not reported here:
  /// the commits that follow report what is wrong, and a lease that ran out only lets another
  /// process claim the instances, whose commits here then fail.
  package func periodicWork() -> (@Sendable () -> Void)? {
    guard let process, !closed, ContinuousClock.now - renewed >= .seconds(1) else { return nil }
    let renewal = PostgresConnection.Statement(
      "SELECT composable_actor.renew($1, $2)", parameters: ownerParameters(process))
    if (try? connection.run([renewal], "renew the lease of \"\(process.id)\"")) != nil {
      renewed = ContinuousClock.now
    }
    return nil
  }

  /// Releases every instance this process holds, so that others claim them at once.
  package func close() throws(InstanceStorageError) {
    guard !closed else { return }
    closed = true
    guard let process else { return }
    _ = try connection.run(
      [
        .init(
          "DELETE FROM composable_actor.owners WHERE process = $1 AND incarnation = $2",
          parameters: ownerParameters(process))
      ], "release the instances of \"\(process.id)\" in \(connection.server)")
  }
}

import ComposableCore

/// What a durable instance wrote since its last commit: the lines that carry its changes, and
/// where they are in the output not yet written, so that a commit that fails can take them
/// back.
///
/// The host appends each action line (or `state` line under `--emit ticks`) as it writes it.
/// Copying the line is what durability costs an action: the commit stores the copies once per
/// loop iteration.
@StoreActor
@_spi(Hosting)
public final class InstanceJournal {
  let address: StoredAddress
  private unowned let durability: Durability
  /// The host the journal belongs to, while it has changes to commit: the commit reads its
  /// state for a snapshot, even if the host was stopped since.
  var host: (any HostedStore)?
  /// The number of the next batch stored.
  var nextBatch: Int
  /// Bytes stored in batches since the latest snapshot, and the snapshot's size: what decides
  /// when the next snapshot is due.
  var bytesSinceSnapshot: Int
  var snapshotBytes: Int
  /// The pending lines, newline-ended.
  private(set) var lines: [UInt8] = []
  /// Where the pending lines are in the output.
  private(set) var outputSpans: [Range<Int>] = []
  /// The journal belongs to an instance that was forgotten: nothing of it may be stored.
  var isForgotten = false

  init(
    address: StoredAddress, durability: Durability, nextBatch: Int = 0,
    bytesSinceSnapshot: Int = 0, snapshotBytes: Int = 0
  ) {
    self.address = address
    self.durability = durability
    self.nextBatch = nextBatch
    self.bytesSinceSnapshot = bytesSinceSnapshot
    self.snapshotBytes = snapshotBytes
  }

  var hasPendingChanges: Bool { !lines.isEmpty }

  /// Keeps the line `output[start...]` that `host` just wrote, to store with the next commit.
  func record(_ output: [UInt8], from start: Int, by host: any HostedStore) {
    if lines.isEmpty {
      self.host = host
      durability.journalHasChanges(self)
    }
    lines.append(contentsOf: output[start...])
    outputSpans.append(start..<output.count)
  }

  /// Forgets the pending lines once they are stored, or taken back.
  func reset() {
    lines.removeAll(keepingCapacity: false)
    outputSpans.removeAll()
    host = nil
  }
}

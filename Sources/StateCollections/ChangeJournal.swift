import Locks

/// One change to a position of a ``ChangeTrackedCollection``. Positions are those of the
/// collection at the moment of the change, so a list of changes applies in order, as JSON Patch
/// operations do.
public enum CollectionChange: Sendable, Equatable {
  /// An element was inserted at this position.
  case inserted(Int)
  /// The element at this position was removed.
  case removed(Int)
  /// The element at this position was replaced.
  case updated(Int)
}

/// The versions of one collection value and of its copies, as they change one after the other,
/// with the changes between them.
///
/// A mutation of the latest version records its change and makes the next version. A mutation
/// of an older version (a copy taken earlier and changed after the latest one moved on) cannot
/// be described from here: the collection starts a journal of its own, and a reader that knew
/// the old journal sees that it must read the collection whole. The journal keeps the last few
/// thousand changes; a reader further behind reads the collection whole too.
public final class ChangeJournal: @unchecked Sendable {
  private let lock = Lock()
  /// The changes after `firstVersion`, oldest first.
  private var entries: [ChangeRecord] = []
  private var firstVersion: UInt64 = 0
  private var latestVersion: UInt64 = 0

  /// Changes kept at least; twice as many before the oldest are dropped.
  static let kept = 4_096

  /// A journal with no changes yet.
  public init() {}

  /// Records `change`, made to `version`; the version it makes, or nil when `version` is not
  /// the latest. An update gives the element it replaced.
  func record(_ change: CollectionChange, replacing previous: Any? = nil, after version: UInt64)
    -> UInt64?
  {
    lock.withLock {
      guard version == latestVersion else { return nil }
      if entries.count == 2 * Self.kept {
        entries.removeFirst(Self.kept)
        firstVersion += UInt64(Self.kept)
      }
      entries.append(ChangeRecord(change: change, previous: previous))
      latestVersion += 1
      return latestVersion
    }
  }

  /// The changes that turn `version` into `later`, oldest first; nil when they are no longer
  /// kept or the versions are not of this journal.
  public func changes(from version: UInt64, to later: UInt64) -> [ChangeRecord]? {
    lock.withLock {
      guard firstVersion <= version, version <= later, later <= latestVersion else { return nil }
      let start = Int(version - firstVersion)
      return Array(entries[start..<start + Int(later - version)])
    }
  }
}

/// A change, and for an update the element it replaced: a reader diffs the two, so that a
/// change to one field of an element is written as that field.
public struct ChangeRecord: @unchecked Sendable {
  /// What changed, and where.
  public let change: CollectionChange
  /// The element before an update, of the collection's element type; nil for other changes.
  public let previous: Any?
}

/// Which version of which journal a collection value is: equal tokens mean equal values.
public struct ChangeToken: Sendable, Equatable {
  /// The journal of the value's history.
  public let journal: ChangeJournal
  /// The value's version in that journal.
  public let version: UInt64

  public static func == (lhs: ChangeToken, rhs: ChangeToken) -> Bool {
    lhs.journal === rhs.journal && lhs.version == rhs.version
  }

  /// The changes from `earlier` to this version; nil when they cannot be told.
  public func changes(since earlier: ChangeToken) -> [ChangeRecord]? {
    guard earlier.journal === journal else { return nil }
    return journal.changes(from: earlier.version, to: version)
  }
}

/// A collection that tells which positions changed since an earlier version of it, so that a
/// host writes its patch in time proportional to the change rather than to its length.
public protocol ChangeTrackedCollection: Encodable {
  /// This value's version.
  var changeToken: ChangeToken { get }
  /// How many elements the value holds.
  var count: Int { get }
  /// The element at `position`, to be encoded.
  func encodableElement(at position: Int) -> any Encodable
  /// An element an update replaced, as a ``ChangeRecord`` gives it, to be encoded.
  func encodable(previousElement: Any) -> any Encodable
}

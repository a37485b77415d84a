import ComposableCore

/// The instances of one store in a session: the default one, and the named ones hosts
/// activated by naming their keys.
///
/// Each instance is a host of its own (state, effects, patches), built by the store's factory on
/// the first line that names it. The named ones are found by key; ``page(after:limit:)`` lists
/// them in the byte order of their keys, so that a host can page through a million of them.
@StoreActor
final class StoreInstances {
  let factory: StoreFactory
  private(set) var defaultInstance: (any HostedStore)?
  private(set) var named: [InstanceKey: any HostedStore] = [:]
  /// The named keys in order, as of the last listing: kept between listings so that paging
  /// through many keys sorts them once. Keys activated since wait in `activatedSinceListing`;
  /// keys stopped since are still here and skipped.
  private var listedKeys: [InstanceKey] = []
  private var activatedSinceListing: [InstanceKey] = []
  private var stoppedSinceListing = 0

  init(factory: StoreFactory) {
    self.factory = factory
  }

  /// Every instance in memory, the default one first.
  var all: [any HostedStore] {
    var hosts = Array(named.values)
    if let defaultInstance { hosts.insert(defaultInstance, at: 0) }
    return hosts
  }

  /// The instance `key` names (the default one for nil), activated now from the store's initial
  /// state if it is not in memory; nil if that would take more than `limit` named instances.
  func instance(_ key: InstanceKey?, limit: Int) -> (any HostedStore)? {
    guard let key else {
      if let defaultInstance { return defaultInstance }
      let host = factory.make(nil)
      defaultInstance = host
      return host
    }
    if let host = named[key] { return host }
    guard named.count < limit else { return nil }
    let host = factory.make(key)
    named[key] = host
    activatedSinceListing.append(key)
    return host
  }

  /// The named instance `key` if it is in memory; it is not activated.
  func existing(_ key: InstanceKey) -> (any HostedStore)? {
    named[key]
  }

  /// Takes the instance `key` out of the session; nil if it is not in memory.
  func remove(_ key: InstanceKey) -> (any HostedStore)? {
    guard let host = named.removeValue(forKey: key) else { return nil }
    stoppedSinceListing += 1
    return host
  }

  /// Up to `limit` keys of named instances in memory, in byte order, from just past `after`;
  /// `next` is the `after` of the following page, nil on the last one.
  func page(after: InstanceKey?, limit: Int) -> (keys: [InstanceKey], next: InstanceKey?) {
    refreshListing()
    var start = 0
    if let after {
      // The first key past `after`, which need not be in memory any more.
      var high = listedKeys.count
      while start < high {
        let middle = (start + high) / 2
        if listedKeys[middle] <= after { start = middle + 1 } else { high = middle }
      }
    }
    let keys = Array(listedKeys[start...].prefix(limit))
    let next = start + keys.count < listedKeys.count ? keys.last : nil
    return (keys, next)
  }

  /// Brings `listedKeys` up to date: a merge of the sorted new keys, linear in the keys held,
  /// rather than a sort of all of them.
  private func refreshListing() {
    guard !activatedSinceListing.isEmpty || stoppedSinceListing > 0 else { return }
    let kept = stoppedSinceListing > 0 ? listedKeys.filter { named[$0] != nil } : listedKeys
    // A key stopped and activated again since the last listing may already be listed.
    let added = activatedSinceListing.filter { named[$0] != nil }.sorted()
    var merged: [InstanceKey] = []
    merged.reserveCapacity(kept.count + added.count)
    var old = 0
    var new = 0
    while old < kept.count || new < added.count {
      if new == added.count || (old < kept.count && kept[old] < added[new]) {
        merged.append(kept[old])
        old += 1
      } else {
        if old < kept.count && kept[old] == added[new] { old += 1 }
        if merged.last != added[new] { merged.append(added[new]) }
        new += 1
      }
    }
    listedKeys = merged
    activatedSinceListing = []
    stoppedSinceListing = 0
  }
}

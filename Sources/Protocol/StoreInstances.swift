import ComposableCore
import DequeModule
import JSON

/// The instances of one store in a session: the default one, and the named ones hosts
/// activated by naming their keys.
///
/// Each instance is a host of its own (state, effects, patches), built by the store's factory on
/// the first line that names it. Past `maxActive` active named instances, the least recently
/// used ones that are their state alone are parked: the host is dropped and the state kept, and
/// the next line that names the instance builds a host from it again. The named ones are found
/// by key; ``page(after:limit:)`` lists them in the byte order of their keys, so that a host can
/// page through a million of them.
///
/// In a durable session every instance is read back from storage when it is activated, and
/// parking takes an instance out of memory entirely: its state is already stored.
@StoreActor
final class StoreInstances {
  let factory: StoreFactory
  let durability: Durability?
  private(set) var defaultInstance: (any HostedStore)?
  /// Each named instance: its host while active, its state alone while parked.
  private var named: [InstanceKey: Slot] = [:]
  /// The most named instances kept active: past it, the least recently used of those that are
  /// their state alone are parked.
  let maxActive: Int
  private var activeCount = 0
  /// The active instances in the order the clock hand visits them (the CLOCK page-replacement
  /// algorithm: a visited instance used since the last visit gets a second chance). An entry
  /// whose serial is not its slot's is stale (the instance was stopped or parked since).
  private var clock: Deque<(key: InstanceKey, serial: Int)> = []
  private var lastSerial = 0
  /// The named keys in order, as of the last listing: kept between listings so that paging
  /// through many keys sorts them once. Keys activated since wait in `activatedSinceListing`;
  /// keys stopped since are still here and skipped.
  private var listedKeys: [InstanceKey] = []
  private var activatedSinceListing: [InstanceKey] = []
  private var stoppedSinceListing = 0
  /// Hosts of instances parked since the last activation, to be given to the next ones
  /// (``StoreFactory/reuse``): freeing a host and building the next was most of what an
  /// activation past `maxActive` cost.
  private var spareHosts: [any HostedStore] = []
  static let maxSpareHosts = 8
  /// How many passivation sweeps ran: an instance remembers the sweep it was last used in.
  private var sweep = 0
  private var defaultInstanceUsedInSweep = 0

  private struct Slot {
    var host: (any HostedStore)?
    var parkedState: Any?
    /// Which activation of the instance this is, to tell its entry in `clock` from stale ones.
    var serial: Int
    var usedSinceVisit = true
    var usedInSweep: Int
  }

  /// Given to every host as it is built, and to those built already when set.
  var didBecomeIdle: (() -> Void)? {
    didSet {
      for host in active { host.didBecomeIdle = didBecomeIdle }
    }
  }

  init(factory: StoreFactory, maxActive: Int, durability: Durability?) {
    self.factory = factory
    self.maxActive = maxActive
    self.durability = durability
  }

  /// How many named instances are in memory, active or parked.
  var count: Int { named.count }

  func isInMemory(_ key: InstanceKey) -> Bool { named[key] != nil }

  /// Every active instance, the default one first.
  var active: [any HostedStore] {
    var hosts = named.values.compactMap(\.host)
    if let defaultInstance { hosts.insert(defaultInstance, at: 0) }
    return hosts
  }

  /// The instance `key` names (the default one for nil), activated now from the store's initial
  /// state, or from its parked state, if it is not active; nil if that would take more than
  /// `limit` named instances. Throws when a durable instance cannot be read back.
  func instance(_ key: InstanceKey?, limit: Int) throws(ProtocolError) -> (any HostedStore)? {
    guard let key else {
      defaultInstanceUsedInSweep = sweep
      if let defaultInstance { return defaultInstance }
      let host = try make(nil, nil)
      defaultInstance = host
      return host
    }
    if let index = named.index(forKey: key) {
      if let host = named.values[index].host {
        named.values[index].usedSinceVisit = true
        named.values[index].usedInSweep = sweep
        return host
      }
      parkIdleInstances(toMake: 1)
      let host = try make(key, named.values[named.index(forKey: key)!].parkedState)
      activate(key, host)
      return host
    }
    guard named.count < limit else { return nil }
    parkIdleInstances(toMake: 1)
    let host = try make(key, nil)
    activate(key, host)
    activatedSinceListing.append(key)
    return host
  }

  /// A host for the instance, from its parked state, or in a durable session from what is
  /// stored of it.
  private func make(_ key: InstanceKey?, _ parkedState: Any?) throws(ProtocolError)
    -> any HostedStore
  {
    let host: any HostedStore
    if let durability {
      let address = StoredAddress(store: factory.name, instance: key)
      let (json, journal) = try durability.resume(address, of: factory)
      host = factory.make(
        key, try json.map { json throws(ProtocolError) in try decode(json, address) })
      host.journal = journal
    } else if let spare = spareHosts.popLast(), factory.reuse(spare, key, parkedState) {
      host = spare
    } else {
      host = factory.make(key, parkedState)
    }
    host.didBecomeIdle = didBecomeIdle
    return host
  }

  private func decode(_ json: JSONValue, _ address: StoredAddress) throws(ProtocolError) -> Any {
    guard let coding = factory.storedState else {
      throw ProtocolError(.storageFailed, "\(address): the store's state cannot be read back")
    }
    do {
      return try coding.decode(json)
    } catch {
      throw ProtocolError(
        .storedStateIncompatible, "\(address): its stored state does not decode: \(error)")
    }
  }

  /// Takes the instance out of memory without a word, cancelling its effects: its state in
  /// memory is ahead of what is stored, which the next line naming it reads back.
  func evict(_ key: InstanceKey?) {
    guard let key else {
      if let host = defaultInstance { left(host) }
      _ = defaultInstance?.stop()
      defaultInstance = nil
      return
    }
    guard let slot = named.removeValue(forKey: key) else { return }
    stoppedSinceListing += 1
    guard let host = slot.host else { return }
    activeCount -= 1
    left(host)
    _ = host.stop()
  }

  /// Stops the instance `key` and takes it out of memory; returns how many of its effects
  /// were cancelled, or nil if it is not in memory.
  func stop(_ key: InstanceKey) -> Int? {
    guard let slot = named.removeValue(forKey: key) else { return nil }
    stoppedSinceListing += 1
    guard let host = slot.host else { return 0 }
    activeCount -= 1
    left(host)
    return host.stop()
  }

  /// A durable instance's host leaves memory: its pending changes are still stored, and it is
  /// released, with the next commit.
  private func left(_ host: any HostedStore) {
    if let journal = host.journal { durability?.stopped(journal) }
  }

  private func activate(_ key: InstanceKey, _ host: any HostedStore) {
    lastSerial += 1
    named[key] = Slot(host: host, parkedState: nil, serial: lastSerial, usedInSweep: sweep)
    clock.append((key, lastSerial))
    activeCount += 1
  }

  /// Starts a passivation sweep (in a durable session): the instances not used in the last
  /// `sweeps` sweeps that are their state alone leave memory, their state being stored.
  func passivateIdleInstances(unusedForSweeps sweeps: Int) {
    guard durability != nil else { return }
    sweep += 1
    if let host = defaultInstance, sweep - defaultInstanceUsedInSweep >= sweeps,
      host.parkableState() != nil
    {
      left(host)
      defaultInstance = nil
    }
    var idle: [InstanceKey] = []
    for (key, slot) in named {
      if let host = slot.host, sweep - slot.usedInSweep >= sweeps, host.parkableState() != nil {
        idle.append(key)
      }
    }
    for key in idle {
      if let host = named.removeValue(forKey: key)?.host { left(host) }
      activeCount -= 1
    }
    stoppedSinceListing += idle.count
  }

  static let maxVisitsPerActivation = 128

  /// Parks the least recently used instances that are their state alone, until `room` more
  /// fit under `maxActive`. An instance with work in flight stays active, so the bound can be
  /// passed while more than `maxActive` instances are busy.
  private func parkIdleInstances(toMake room: Int) {
    // Two turns of the hand at most (the first may only clear the marks of recent use), and a
    // bounded number of visits per activation: when the instances are busy (or, in a durable
    // session, changed since the last commit), every activation would otherwise visit them
    // all, and a burst of new keys would cost the square of its length. The hand goes on from
    // where it stopped at the next activation.
    var visits = min(2 * clock.count, Self.maxVisitsPerActivation)
    while activeCount + room > maxActive, visits > 0, let entry = clock.popFirst() {
      visits -= 1
      guard let index = named.index(forKey: entry.key), named.values[index].serial == entry.serial,
        let host = named.values[index].host
      else { continue }
      if named.values[index].usedSinceVisit {
        named.values[index].usedSinceVisit = false
      } else if let state = host.parkableState() {
        if durability != nil {
          left(host)
          named.remove(at: index)
          stoppedSinceListing += 1
        } else {
          named.values[index].host = nil
          named.values[index].parkedState = state
          if spareHosts.count < Self.maxSpareHosts { spareHosts.append(host) }
        }
        activeCount -= 1
        continue
      }
      clock.append(entry)
    }
    // Stopped instances leave stale entries: drop them once they outnumber the live ones.
    if clock.count > 2 * activeCount + 64 {
      clock = Deque(
        clock.filter { named[$0.key]?.serial == $0.serial && named[$0.key]?.host != nil })
    }
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

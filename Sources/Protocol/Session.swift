import ComposableCore
import JSON

/// Moves a virtual clock on behalf of the `advance` and `settle` commands.
@StoreActor
@_spi(Hosting)
public protocol TimeControl: AnyObject {
  /// Moves time forward by `ms`, letting everything due run and settle on the way; then calls
  /// `completion` with how far it went.
  func advance(byMilliseconds ms: Int, completion: @escaping (AdvanceOutcome) -> Void)
  /// Calls `completion` once no effect can make progress without time or I/O.
  func settle(completion: @escaping () -> Void)
}

/// Where an advance ended.
@_spi(Hosting)
public struct AdvanceOutcome: Sendable, Equatable {
  /// The virtual time since start, in milliseconds.
  public let now: Int
  /// Set when the advance stopped before its target, after this many wake-ups: a timer that
  /// fires every millisecond, advanced by a century, must not hold the process (and a `quit`
  /// behind it) for hours.
  public let stoppedAfterWakeUps: Int?

  public init(now: Int, stoppedAfterWakeUps: Int? = nil) {
    self.now = now
    self.stoppedAfterWakeUps = stoppedAfterWakeUps
  }
}

/// Reads input lines and dispatches them: actions to their stores, commands to their handlers,
/// and a refused line to an `error` line that leaves every state as it was.
@StoreActor
@_spi(Hosting)
public final class Session {
  public let output: OutputLines
  public let maxDepth: Int
  /// Called when the host sends `{"cmd":"quit"}`; later lines are ignored.
  public var didRequestQuit: (() -> Void)?
  /// Moves virtual time for `advance` and `settle`; nil under the live clock, where both are
  /// refused.
  public var timeControl: (any TimeControl)?
  /// Called with true when an `advance` or `settle` starts, and with false when it ended: no
  /// line may be handed in between, as the lines after it must see its end. The caller pauses
  /// its reader, which keeps what it read.
  public var isHoldingInputChanged: ((Bool) -> Void)?

  /// Each store's instances, in the order `ready` lists the stores: each instance is built by
  /// the first line that needs it.
  private let stores: [StoreInstances]
  /// The most named instances a store may have in memory (`--max-instances`).
  public let maxInstances: Int
  /// The stores' names, in the order `ready` lists them.
  public let storeNames: [String]
  /// The names' UTF-8, for finding a store from the bytes of a compact action line.
  private let storeNameBytes: [[UInt8]]
  private let sequence: ActionSequence
  /// Set in a durable session (`--state-dir`).
  private let durability: Durability?
  private var hasQuit = false
  private var isHoldingInput = false

  public init(
    stores: [StoreFactory], output: OutputLines, sequence: ActionSequence, maxDepth: Int = 64,
    maxInstances: Int = Session.defaultMaxInstances,
    maxActiveInstances: Int = Session.defaultMaxActiveInstances, durability: Durability? = nil
  ) {
    precondition(
      Set(stores.map(\.name)).count == stores.count, "store names must be unique")
    self.stores = stores.map {
      StoreInstances(factory: $0, maxActive: maxActiveInstances, durability: durability)
    }
    self.durability = durability
    self.maxInstances = maxInstances
    self.storeNames = stores.map(\.name)
    self.storeNameBytes = storeNames.map { Array($0.utf8) }
    self.output = output
    self.sequence = sequence
    self.maxDepth = maxDepth
  }

  public func writeReady(version: String) {
    output.ready(protocolVersion: 1, stores: storeNames, version: version)
  }

  /// At least a million, as the instances issue asks: far more than a host keeps busy, and
  /// still a bound on what a host naming ever new keys can make the process hold.
  public nonisolated static let defaultMaxInstances = 1_000_000
  /// How many named instances of a store keep their hosts while idle: about 7 KB each for the
  /// primes store, against its state alone for a parked one.
  public nonisolated static let defaultMaxActiveInstances = 1024

  /// The store named `name`'s instance `key` (its default instance for nil), activated now if
  /// it is not in memory; nil for an unknown store, past `maxInstances`, or when a durable
  /// instance cannot be read back.
  public func store(named name: String, instance key: InstanceKey? = nil) -> (any HostedStore)? {
    storeNames.firstIndex(of: name).flatMap { try? instance(key, ofStoreAt: $0) }
  }

  /// What the `stop` command does, without its line: stops the store's instance `key` and
  /// takes it out of memory; the number of its effects cancelled, or nil when it is not in
  /// memory (or there is no such store).
  public func stop(store name: String, instance key: InstanceKey) -> Int? {
    storeNames.firstIndex(of: name).flatMap { stores[$0].stop(key) }
  }

  /// Each store's description, in the order `ready` lists the stores.
  public var descriptors: [StoreDescriptor] { stores.map(\.factory.descriptor) }

  /// The keys of the store's named instances in memory, in byte order: the first `limit`.
  public func instanceKeys(of name: String, limit: Int = .max) -> [InstanceKey] {
    guard let index = storeNames.firstIndex(of: name) else { return [] }
    return stores[index].page(after: nil, limit: limit).keys
  }

  /// The instance `key` of the store at `index`, activated now if it is not in memory; nil
  /// past `maxInstances`.
  private func instance(_ key: InstanceKey?, ofStoreAt index: Int) throws(ProtocolError)
    -> (any HostedStore)?
  {
    try stores[index].instance(key, limit: maxInstances)
  }

  /// One sweep of `--passivate-after` (in a durable session): the instances of every store not
  /// used in the last `sweeps` sweeps, with no effect running, leave memory.
  public func passivateIdleInstances(unusedForSweeps sweeps: Int) {
    for instances in stores { instances.passivateIdleInstances(unusedForSweeps: sweeps) }
  }

  /// Stores what the loop iteration changed (in a durable session), before its lines are
  /// written: a failure takes the lines back, and the instances they showed leave memory.
  public func commitChanges() {
    guard let durability else { return }
    for address in durability.commit(output, lastSequence: sequence.last) {
      if let index = storeNames.firstIndex(of: address.store) {
        stores[index].evict(address.instance)
      }
    }
  }

  private var builtStores: [any HostedStore] { stores.flatMap(\.active) }

  public var effectsInFlight: Int {
    builtStores.reduce(0) { $0 + $1.effectsInFlight }
  }

  /// Cancels every store's effects for `reason` (`quit`, `eof`, …); returns how many were in
  /// flight.
  public func cancelAllEffects(because reason: String) -> Int {
    builtStores.reduce(0) { $0 + $1.cancelAllEffects(because: reason) }
  }

  /// Called every time a store's last effect finished.
  public func onStoreIdle(_ handler: @escaping () -> Void) {
    for instances in stores { instances.didBecomeIdle = handler }
  }

  /// Writes the loop iteration's `state` lines (`--emit ticks`): the default instances' in the
  /// order of the stores, then the named instances' that reduced actions, in the order they
  /// began to.
  public func endTick() {
    // Not `stores.map(\.defaultInstance)`: an array made at every loop iteration was a quarter
    // of what a round trip's iteration cost around its line.
    for instances in stores { instances.defaultInstance?.endTick() }
    for store in output.takeInstancesWithStateLines() { store.endTick() }
  }

  public func handleLine(_ bytes: UnsafeRawBufferPointer, lineNumber: Int) {
    precondition(!isHoldingInput, "a line was handed in while an advance or settle runs")
    guard !hasQuit, !Self.isBlank(bytes) else { return }
    do {
      let line = try CompactActionLine(bytes, maxDepth: maxDepth)
      // A store finds a payload-free action it has seen before by its type's bytes, and reads
      // a payload of scalars from the text; anything else (another payload, a first sighting,
      // an unknown store or action, an error) takes the general route from the message.
      switch line.action {
      case .type(let type, _):
        if let store = store(of: line), store.sendKnownAction(type: type, id: line.id) { return }
      case .text(let text):
        if let store = store(of: line), store.sendActionText(text, id: line.id) { return }
      case .payload:
        break
      }
      handle(line.message, lineNumber: lineNumber)
      return
    } catch {
      // Not a compact line: the general parser reads it below.
    }
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes, maxDepth: maxDepth)
    } catch {
      output.error(ProtocolError(Self.code(of: error), error.message), line: lineNumber, id: nil)
      return
    }
    let message: InputMessage
    do {
      message = try InputMessage(value, line: bytes)
    } catch {
      output.error(
        error.error, line: lineNumber, id: error.id, store: error.store, instance: error.instance)
      return
    }
    handle(message, lineNumber: lineNumber)
  }

  /// The instance a compact line names, if there is one; the general route says why not.
  private func store(of line: CompactActionLine) -> (any HostedStore)? {
    guard let index = storeIndex(named: line.store) else { return nil }
    return try? instance(line.instance, ofStoreAt: index)
  }

  private func handle(_ message: InputMessage, lineNumber: Int) {
    do {
      switch message {
      case .action(let store, let instance, let action, let id):
        try dispatch(action, to: store, instance: instance, id: id)
      case .command(let name, let arguments, let id):
        try run(command: name, arguments: arguments, id: id)
      }
    } catch {
      output.error(
        error.error, line: lineNumber, id: error.id, store: error.store, instance: error.instance)
    }
  }

  public func rejectOverlongLine(lineNumber: Int, limit: Int) {
    guard !hasQuit else { return }
    output.error(
      ProtocolError(
        .lineTooLong, "line is longer than \(limit) bytes (--max-line-bytes); it was skipped"),
      line: lineNumber, id: nil)
  }

  private func dispatch(
    _ action: JSONValue, to name: String, instance key: InstanceKey?, id: MessageID?
  ) throws(InputError) {
    let store = try instance(key, ofStoreNamed: name, id: id)
    do {
      try store.send(action, id: id)
    } catch {
      throw InputError(id: id, error, store: name, instance: key)
    }
  }

  /// The instance a line names, activated if need be; the error says why there is none.
  private func instance(
    _ key: InstanceKey?, ofStoreNamed name: String, id: MessageID?, command: String? = nil
  ) throws(InputError) -> any HostedStore {
    guard let index = storeNames.firstIndex(of: name) else {
      throw InputError(
        id: id,
        ProtocolError(
          .unknownStore,
          (command.map { "\($0): " } ?? "")
            + "no store named \"\(name)\"; the stores are \(storeNames.joined(separator: ", "))"),
        store: name, instance: key)
    }
    let found: (any HostedStore)?
    do {
      found = try instance(key, ofStoreAt: index)
    } catch {
      throw InputError(id: id, error, store: name, instance: key)
    }
    guard let store = found else {
      throw InputError(
        id: id,
        ProtocolError(
          .instanceLimit,
          "\(name) has \(maxInstances) instances in memory (--max-instances); "
            + "stop one before activating \"\(key!)\""),
        store: name, instance: key)
    }
    return store
  }

  private func run(command: String, arguments: JSONObject, id: MessageID?) throws(InputError) {
    func fail(_ message: String) -> InputError {
      InputError(id: id, ProtocolError(.invalidCommand, message))
    }
    func expectArguments(_ allowed: Set<String>) throws(InputError) {
      if let extra = arguments.keys.first(where: { !allowed.contains($0) }) {
        throw fail("\(command): unknown argument \"\(extra)\"")
      }
    }
    func storeArgument() throws(InputError) -> String {
      guard case .string(let name)? = arguments["store"] else {
        throw fail("\(command): \"store\" (a store name) is required")
      }
      return name
    }
    func instanceArgument() throws(InputError) -> InstanceKey? {
      do {
        return try InputMessage.instance(arguments["instance"])
      } catch {
        throw InputError(id: id, ProtocolError(error.code, "\(command): \(error.message)"))
      }
    }
    switch command {
    case "snapshot":
      try expectArguments(["store", "instance"])
      let name = try storeArgument()
      let key = try instanceArgument()
      var store = try instance(key, ofStoreNamed: name, id: id, command: command)
      store.endTick()
      // A host reads a snapshot as it reads action lines: it must show nothing that is not
      // stored yet, so the changes it would show are stored first (or, failing that, taken
      // back, and the snapshot shows what is stored).
      if store.journal?.hasPendingChanges == true {
        commitChanges()
        store = try instance(key, ofStoreNamed: name, id: id, command: command)
      }
      output.snapshot(
        store: name, instance: key, seq: sequence.last, id: id, state: store.snapshot())
    case "instances":
      try expectArguments(["store", "limit", "after"])
      let name = try storeArgument()
      guard let index = storeNames.firstIndex(of: name) else {
        throw InputError(
          id: id, ProtocolError(.unknownStore, "instances: no store named \"\(name)\""))
      }
      var limit = Self.defaultInstancesPage
      if let value = arguments["limit"] {
        guard case .int(let given) = value, given >= 1 else {
          throw fail("instances: \"limit\" must be a whole number from 1")
        }
        limit = given
      }
      let after: InstanceKey?
      do {
        after = try InputMessage.instance(arguments["after"], member: "after")
      } catch {
        throw InputError(id: id, ProtocolError(.invalidCommand, "instances: \(error.message)"))
      }
      let page = try instancesPage(of: index, after: after, limit: limit, id: id)
      output.instances(
        store: name, active: page.active, passivated: page.passivated,
        count: stores[index].count, next: page.next, id: id)
    case "stop":
      try expectArguments(["store", "instance"])
      let name = try storeArgument()
      guard let key = try instanceArgument() else {
        throw fail("stop: \"instance\" (the key of the instance to stop) is required")
      }
      guard storeNames.contains(name) else {
        throw InputError(
          id: id, ProtocolError(.unknownStore, "stop: no store named \"\(name)\""), store: name,
          instance: key)
      }
      guard let cancelled = stop(store: name, instance: key) else {
        throw InputError(
          id: id,
          ProtocolError(
            .unknownInstance, "stop: \(name) has no instance \"\(key)\" in memory"),
          store: name, instance: key)
      }
      output.stopped(store: name, instance: key, cancelledEffects: cancelled, id: id)
    case "forget":
      try expectArguments(["store", "instance"])
      let name = try storeArgument()
      guard let key = try instanceArgument() else {
        throw fail("forget: \"instance\" (the key of the instance to forget) is required")
      }
      guard let durability else {
        throw InputError(
          id: id,
          ProtocolError(
            .invalidCommand,
            "forget needs --state-dir: without it no instance is stored, and stop takes one "
              + "out of memory"), store: name, instance: key)
      }
      guard let index = storeNames.firstIndex(of: name) else {
        throw InputError(
          id: id, ProtocolError(.unknownStore, "forget: no store named \"\(name)\""),
          store: name, instance: key)
      }
      let address = StoredAddress(store: name, instance: key)
      let cancelled = stores[index].stop(key)
      if cancelled == nil {
        let isStored: Bool
        do {
          isStored = try durability.isStored(address)
        } catch {
          throw InputError(id: id, error, store: name, instance: key)
        }
        guard isStored else {
          throw InputError(
            id: id,
            ProtocolError(.unknownInstance, "forget: \(name) has no instance \"\(key)\""),
            store: name, instance: key)
        }
      }
      let start = output.bytes.count
      output.forgotten(store: name, instance: key, cancelledEffects: cancelled ?? 0, id: id)
      durability.forget(address, span: start..<output.bytes.count, id: id)
    case "describe":
      try expectArguments([])
      output.describe(id: id, stores: stores.map(\.factory.descriptor.json))
    case "quit":
      try expectArguments([])
      hasQuit = true
      didRequestQuit?()
    case "advance":
      try expectArguments(["ms"])
      guard case .int(let ms)? = arguments["ms"], (0...Self.maxAdvance).contains(ms) else {
        throw fail(
          "advance: \"ms\" (whole milliseconds, 0 to \(Self.maxAdvance)) is required")
      }
      let timeControl = try virtualTime(command, id: id)
      holdInput()
      timeControl.advance(byMilliseconds: ms) { [unowned self] outcome in
        if let limit = outcome.stoppedAfterWakeUps {
          output.error(
            ProtocolError(
              .advanceLimit,
              "advance stopped after \(limit) wake-ups, at \(outcome.now) ms "
                + "(--max-advance-wakeups): advance again to go on"), line: nil, id: id)
        } else {
          output.advanced(ms: ms, now: outcome.now, id: id)
        }
        releaseInput()
      }
    case "settle":
      try expectArguments([])
      let timeControl = try virtualTime(command, id: id)
      holdInput()
      timeControl.settle { [unowned self] in
        output.settled(id: id)
        releaseInput()
      }
    default:
      throw InputError(
        id: id,
        ProtocolError(
          .unknownCommand,
          "no command named \"\(command)\"; the commands are snapshot, describe, instances, "
            + "stop, forget, quit, advance, settle"))
    }
  }

  /// A page of `instances`: up to `limit` keys from just past `after`, of the instances in
  /// memory and, in a durable session, of those stored only, in one byte order.
  private func instancesPage(
    of index: Int, after: InstanceKey?, limit: Int, id: MessageID?
  ) throws(InputError) -> (active: [InstanceKey], passivated: [InstanceKey]?, next: InstanceKey?) {
    let inMemory = stores[index].page(after: after, limit: limit)
    guard let durability else { return (inMemory.keys, nil, inMemory.next) }
    // The first `limit` keys of the two lists together are among the first `limit` + 1 of
    // each, and one more tells whether a next page exists.
    let active = stores[index].page(after: after, limit: limit + 1).keys
    let stored: [InstanceKey]
    do {
      stored = try durability.storedKeys(of: storeNames[index], after: after, limit: limit + 1)
    } catch {
      throw InputError(id: id, error, store: storeNames[index], instance: nil)
    }
    let activeSet = Set(active)
    let merged = Array(Set(active).union(stored)).sorted().prefix(limit + 1)
    let page = merged.prefix(limit)
    return (
      page.filter { activeSet.contains($0) || stores[index].isInMemory($0) },
      page.filter { !activeSet.contains($0) && !stores[index].isInMemory($0) },
      merged.count > limit ? page.last : nil
    )
  }

  /// How many keys an `instances` answer lists when the host gives no `limit`.
  static let defaultInstancesPage = 1000

  /// A century: more than any test needs, and far from overflowing a `Duration`.
  public nonisolated static let maxAdvance = 100 * 366 * 86_400_000

  private func virtualTime(_ command: String, id: MessageID?) throws(InputError) -> any TimeControl
  {
    guard let timeControl else {
      throw InputError(
        id: id,
        ProtocolError(
          .clockNotVirtual, "\(command) needs a virtual clock: start with --clock virtual"))
    }
    return timeControl
  }

  private func holdInput() {
    isHoldingInput = true
    isHoldingInputChanged?(true)
  }

  private func releaseInput() {
    isHoldingInput = false
    isHoldingInputChanged?(false)
  }

  private func storeIndex(named name: UnsafeRawBufferPointer) -> Int? {
    // A loop, not `firstIndex(where:)`: a closure isolated to the store actor checks at run
    // time that it runs there, which costs more than the search.
    for index in storeNameBytes.indices where name.hasSameBytes(as: storeNameBytes[index]) {
      return index
    }
    return nil
  }

  /// Lines of spaces and tabs count as empty, like the empty lines the reader already skips.
  private static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let first = bytes.first, first == 0x20 || first == 0x09 else { return false }
    return bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 }
  }

  private static func code(of error: JSONParseError) -> ErrorCode {
    switch error.kind {
    case .invalidJSON: return .invalidJSON
    case .invalidUTF8: return .invalidUTF8
    case .tooDeep: return .tooDeep
    case .numberOutOfRange: return .numberOutOfRange
    }
  }
}

import ComposableCore
import JSON

/// Moves a virtual clock on behalf of the `advance` and `settle` commands.
@StoreActor
public protocol TimeControl: AnyObject {
  /// Moves time forward by `ms`, letting everything due run and settle on the way; then calls
  /// `completion` with how far it went.
  func advance(byMilliseconds ms: Int, completion: @escaping (AdvanceOutcome) -> Void)
  /// Calls `completion` once no effect can make progress without time or I/O.
  func settle(completion: @escaping () -> Void)
}

/// Where an advance ended.
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

  private let factories: [StoreFactory]
  /// The stores built so far, by position in `factories`: each is built by the first line that
  /// needs it.
  private var built: [(any HostedStore)?]
  /// The stores' names, in the order `ready` lists them.
  public let storeNames: [String]
  /// The names' UTF-8, for finding a store from the bytes of a compact action line.
  private let storeNameBytes: [[UInt8]]
  private let sequence: ActionSequence
  private var didBecomeIdle: (() -> Void)?
  private var hasQuit = false
  private var isHoldingInput = false

  public init(
    stores: [StoreFactory], output: OutputLines, sequence: ActionSequence, maxDepth: Int = 64
  ) {
    precondition(
      Set(stores.map(\.name)).count == stores.count, "store names must be unique")
    self.factories = stores
    self.built = Array(repeating: nil, count: stores.count)
    self.storeNames = stores.map(\.name)
    self.storeNameBytes = storeNames.map { Array($0.utf8) }
    self.output = output
    self.sequence = sequence
    self.maxDepth = maxDepth
  }

  public func writeReady(version: String) {
    output.ready(protocolVersion: 1, stores: storeNames, version: version)
  }

  /// The store named `name`, built now if no line needed it before.
  public func store(named name: String) -> (any HostedStore)? {
    storeNames.firstIndex(of: name).map(store(at:))
  }

  private func store(at index: Int) -> any HostedStore {
    if let store = built[index] { return store }
    let store = factories[index].make()
    store.didBecomeIdle = didBecomeIdle
    built[index] = store
    return store
  }

  private var builtStores: [any HostedStore] { built.compactMap { $0 } }

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
    didBecomeIdle = handler
    for store in builtStores { store.didBecomeIdle = handler }
  }

  public func endTick() {
    for case let store? in built { store.endTick() }
  }

  public func handleLine(_ bytes: UnsafeRawBufferPointer, lineNumber: Int) {
    precondition(!isHoldingInput, "a line was handed in while an advance or settle runs")
    guard !hasQuit, !Self.isBlank(bytes) else { return }
    if let line = CompactActionLine(bytes, maxDepth: maxDepth) {
      // A store finds an action it has seen before by its type's bytes; anything else (a
      // first sighting, an unknown store or action) takes the general route.
      if let index = storeIndex(named: line.store),
        store(at: index).sendKnownAction(type: line.type, id: line.id)
      {
        return
      }
      handle(line.message, lineNumber: lineNumber)
      return
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
      output.error(error.error, line: lineNumber, id: error.id)
      return
    }
    handle(message, lineNumber: lineNumber)
  }

  private func handle(_ message: InputMessage, lineNumber: Int) {
    do {
      switch message {
      case .action(let store, let action, let id):
        try dispatch(action, to: store, id: id, lineNumber: lineNumber)
      case .command(let name, let arguments, let id):
        try run(command: name, arguments: arguments, id: id)
      }
    } catch {
      output.error(error.error, line: lineNumber, id: error.id)
    }
  }

  public func rejectOverlongLine(lineNumber: Int, limit: Int) {
    guard !hasQuit else { return }
    output.error(
      ProtocolError(
        .lineTooLong, "line is longer than \(limit) bytes (--max-line-bytes); it was skipped"),
      line: lineNumber, id: nil)
  }

  private func dispatch(_ action: JSONValue, to name: String, id: MessageID?, lineNumber: Int)
    throws(InputError)
  {
    guard let store = store(named: name) else {
      throw InputError(
        id: id,
        ProtocolError(
          .unknownStore,
          "no store named \"\(name)\"; the stores are \(storeNames.joined(separator: ", "))"))
    }
    do {
      try store.send(action, id: id)
    } catch {
      throw InputError(id: id, error)
    }
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
    switch command {
    case "snapshot":
      try expectArguments(["store"])
      guard case .string(let name)? = arguments["store"] else {
        throw fail("snapshot: \"store\" (a store name) is required")
      }
      guard let store = store(named: name) else {
        throw InputError(
          id: id, ProtocolError(.unknownStore, "snapshot: no store named \"\(name)\""))
      }
      let state = store.snapshot()
      output.snapshot(store: name, seq: sequence.last, id: id, state: state)
    case "describe":
      try expectArguments([])
      output.describe(id: id, stores: factories.map(\.descriptor.json))
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
          "no command named \"\(command)\"; the commands are snapshot, describe, quit, "
            + "advance, settle"))
    }
  }

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

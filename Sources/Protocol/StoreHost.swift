import ComposableCore
import JSON

/// Puts a typed store on the wire: decodes its actions, and after every reduction writes the
/// action with the JSON Patch that turns the previous state into the new one.
///
/// The patch is a diff of the state's JSON before and after (see ``StateJSON``), so it is
/// correct by construction whatever the reducer did; hosts that apply every patch to the first
/// snapshot hold the same state as the store.
@StoreActor
@_spi(Hosting)
public final class StoreHost<State: Encodable, Action: ComposableAction>: HostedStore {
  public let descriptor: StoreDescriptor
  /// Which instance of the store this is: nil for the default one.
  public private(set) var instance: InstanceKey?
  private let store: Store<State, Action>
  private let output: OutputLines
  private let sequence: ActionSequence
  private let mode: EmitMode
  private let stateJSON: StateJSON<State>
  /// What every host of the store shares: the actions decoded so far, who may send which.
  private let shared: Shared
  /// The payload-free actions sent so far, with the text of their action lines: decoding and
  /// echoing one is a lookup after the first time. Bounded by the number of payload-free
  /// cases, so comparing the types' bytes in turn finds one sooner than hashing would. A new
  /// host starts with those the store's other hosts decoded (``Shared/knownActions``); its own
  /// copy keeps the lookup, which every payload-free line makes, off a shared object's
  /// property.
  private var knownActions: [KnownAction]
  /// The position in `knownActions` of the host action being sent, while it is. (Positions,
  /// not entries, are passed around: copying an entry retains its arrays.)
  private var sendingKnownAction: Int?
  /// The wire object of the host action being sent, while it is, when its line can show it as
  /// it came. (Apart from `sendingKnownAction`: an optional enum holding either cost the
  /// payload-free path a copy and a destroy of the enum per action.)
  private var sendingWireAction: JSONValue?
  /// The same as text of the input line, while an action read from it is sent.
  private var sendingWireText: UnsafeRawBufferPointer?
  /// The types of actions with a payload read from their text so far that a host may send:
  /// checked by their bytes, without making a string to look up in ``hostTypes``. Bounded by
  /// the number of cases, as only types that decoded are kept.
  private var hostPayloadTypes: [[UInt8]] = []
  /// The start of every action line of this store.
  private var actionLinePrefix: [UInt8]
  private var tick = Tick()
  /// Whether effects are traced (`--trace effects`): an effect's action line names it.
  private let tracesEffects: Bool
  /// The types a host may send (``Shared/hostTypes``).
  private var hostTypes: Set<String>? { shared.hostTypes }
  /// `send` and `sendKnownAction`, made in `init`. Through `HostedStore` a generic class's
  /// methods run unspecialized code, which looks up type metadata at run time; a closure made
  /// where the store's types are known runs code specialized for them, down through the store
  /// and its reducer. They take the host as an argument rather than capture it: a captured
  /// unowned reference costs two atomic operations on every call.
  private let sendFromHost: (StoreHost, JSONValue, MessageID?) throws(ProtocolError) -> Void
  private let sendKnownFromHost: (StoreHost, UnsafeRawBufferPointer, MessageID?) -> Bool
  private let sendTextFromHost: (StoreHost, ActionText, MessageID?) -> Bool

  /// Called where `State` is concrete, so that a fieldwise state gets the other initializer.
  public convenience init(
    store: Store<State, Action>, descriptor: StoreDescriptor, output: StoreOutput
  ) {
    self.init(
      store: store, descriptor: descriptor, output: output,
      stateJSON: .memberwise(store.state, store: descriptor.name))
  }

  /// For a state that lists its fields: each action encodes only the fields it changed.
  public convenience init(
    store: Store<State, Action>, descriptor: StoreDescriptor, output: StoreOutput
  ) where State: FieldwiseEncodable {
    self.init(
      store: store, descriptor: descriptor, output: output,
      stateJSON: .fieldwise(store.state, store: descriptor.name))
  }

  private init(
    store: Store<State, Action>, descriptor: StoreDescriptor, output: StoreOutput,
    stateJSON: StateJSON<State>
  ) {
    self.store = store
    self.descriptor = descriptor
    self.instance = output.instance
    self.output = output.lines
    self.sequence = output.sequence
    self.mode = output.mode
    self.stateJSON = stateJSON
    self.actionLinePrefix = OutputLines.actionLinePrefix(
      store: descriptor.name, instance: output.instance)
    tracesEffects = output.effectTraceTime != nil
    if let existing = output.hostState?.value as? Shared {
      shared = existing
    } else {
      shared = Shared(
        hostTypes: output.acceptsEffectActions
          ? nil : Set(descriptor.actions.filter { $0.sentBy == .host }.map(\.type)))
      output.hostState?.value = shared
    }
    knownActions = shared.knownActions
    sendFromHost = { host, action, id throws(ProtocolError) in
      let (decoded, echo) = try host.decodeHostAction(action)
      host.beginSending(echo)
      defer { host.endSending() }
      host.send(decoded, id: id)
    }
    sendKnownFromHost = { host, type, id in
      guard let known = host.knownAction(type: type), host.knownActions[known].isHostAction
      else { return false }
      host.sendingKnownAction = known
      defer { host.sendingKnownAction = nil }
      host.send(host.knownActions[known].action, id: id)
      return true
    }
    sendTextFromHost = { host, text, id in
      guard host.mayHostSend(payloadType: text.type),
        let (decoded, roundTrips) = ActionCoding.decodeNoting(Action.self, from: text)
      else { return false }
      host.notePayloadType(text.type)
      // Compact, the text is what writing the parsed object would give: the line shows it.
      if roundTrips, text.isCompact { host.sendingWireText = text.bytes }
      defer { host.sendingWireText = nil }
      host.send(decoded, id: id)
      return true
    }
    store.didReduce = { [unowned self] reduced, state in
      self.didReduce(reduced, state: state)
    }
    store.didFailEffect = { [unowned self] error, origin in
      self.effectFailed(error, origin: origin)
    }
    store.didReportIssue = { [unowned self] issue, origin in
      self.reportIssue(issue, origin: origin)
    }
    store.labelsEffects = output.labelsEffects
    if let time = output.effectTraceTime {
      store.didChangeEffect = { [unowned self] event in
        self.endTick()
        self.output.effect(
          store: self.descriptor.name, instance: self.instance, event, t: time())
      }
    }
  }

  /// Makes this host, which the session parked, the host of another instance of the same store,
  /// in `state` with `reducer` (built for that instance): what the host is made of is kept,
  /// rather than freed as one instance leaves memory and made again as the next one comes in,
  /// which was most of what activating an instance cost. The host must be its state alone
  /// (``parkableState()``).
  public func reuse<R: Reducer>(from state: State, reducer: R, output: StoreOutput)
  where R.State == State, R.Action == Action {
    precondition(tick.actions == 0, "reusing a host with a state line pending")
    store.restart(from: state, reducer: reducer)
    if instance != output.instance {
      instance = output.instance
      actionLinePrefix = OutputLines.actionLinePrefix(
        store: descriptor.name, instance: output.instance)
    }
    journal = nil
    stateJSON.reset(state)
  }

  public var journal: InstanceJournal?

  public var effectsInFlight: Int { store.effectsInFlight }

  public var didBecomeIdle: (() -> Void)? {
    get { store.didBecomeIdle }
    set { store.didBecomeIdle = newValue }
  }

  public func cancelAllEffects(because reason: String) -> Int {
    store.cancelAllEffects(because: reason)
  }

  public func stop() -> Int {
    let cancelled = store.cancelAllEffects(because: "stop")
    // The store lives on until its cancelled effects' tasks end; nothing it reports then may
    // reach this host, which the session is about to free.
    store.didReduce = nil
    store.didFailEffect = nil
    store.didReportIssue = nil
    store.didChangeEffect = nil
    return cancelled
  }

  public func send(_ action: JSONValue, id: MessageID?) throws(ProtocolError) {
    try sendFromHost(self, action, id)
  }

  public func sendKnownAction(type: UnsafeRawBufferPointer, id: MessageID?) -> Bool {
    sendKnownFromHost(self, type, id)
  }

  public func sendActionText(_ text: ActionText, id: MessageID?) -> Bool {
    sendTextFromHost(self, text, id)
  }

  /// Whether a host may send actions of this type, for a type decoded before or when any may
  /// be sent; false sends the action the general way, which checks.
  private func mayHostSend(payloadType type: UnsafeRawBufferPointer) -> Bool {
    guard let hostTypes else { return true }
    return isNoted(payloadType: type) || hostTypes.contains(String(decoding: type, as: UTF8.self))
  }

  private func notePayloadType(_ type: UnsafeRawBufferPointer) {
    guard hostTypes != nil, !isNoted(payloadType: type) else { return }
    hostPayloadTypes.append(Array(type))
  }

  /// A loop rather than `contains(where:)`: a closure made in this actor-isolated class checks
  /// that it runs on the store's actor each time it is called, 350 instructions a call.
  private func isNoted(payloadType type: UnsafeRawBufferPointer) -> Bool {
    for index in hostPayloadTypes.indices where type.hasSameBytes(as: hostPayloadTypes[index]) {
      return true
    }
    return false
  }

  public func replay(_ action: JSONValue, source: ActionSource, id: MessageID?)
    throws(ProtocolError)
  {
    let (decoded, echo) = try decode(action)
    beginSending(source == .host ? echo : nil)
    defer { endSending() }
    store.reduceDiscardingEffects(decoded, source: source, cause: id)
  }

  private func beginSending(_ echo: HostActionEcho?) {
    switch echo {
    case .known(let known)?: sendingKnownAction = known
    case .wire(let action)?: sendingWireAction = action
    case nil: break
    }
  }

  private func endSending() {
    sendingKnownAction = nil
    sendingWireAction = nil
  }

  public func snapshot() -> JSONValue {
    endTick()
    return stateJSON.current(store.state)
  }

  public func parkableState() -> Any? {
    guard store.isOnlyItsState, tick.actions == 0, journal?.hasPendingChanges != true else {
      return nil
    }
    return store.state
  }

  public func endTick() {
    guard tick.actions > 0 else { return }
    let lineStart = output.bytes.count
    output.beginStateLine(
      store: descriptor.name, instance: instance, seq: tick.lastSeq, actions: tick.actions,
      ids: tick.ids)
    output.patch { stateJSON.writePatch(store.state, &$0) }
    journal?.record(output.bytes, from: lineStart, by: self)
    tick = Tick()
  }

  private func didReduce(_ reduced: ReducedAction<Action>, state: State) -> Int {
    let seq = sequence.next()
    let id = Self.messageID(of: reduced)
    switch mode {
    case .actions:
      let lineStart = output.bytes.count
      defer { journal?.record(output.bytes, from: lineStart, by: self) }
      if reduced.source == .host, let known = sendingKnownAction {
        output.beginActionLine(
          prefix: actionLinePrefix, seq: seq, id: id,
          hostActionText: knownActions[known].hostActionText)
        sendingKnownAction = nil
      } else if reduced.source == .host, let action = sendingWireAction {
        output.beginActionLine(
          prefix: actionLinePrefix, seq: seq, id: id, source: .host, action: action)
        sendingWireAction = nil
      } else if reduced.source == .host, let text = sendingWireText {
        output.beginActionLine(prefix: actionLinePrefix, seq: seq, id: id, hostActionObject: text)
        sendingWireText = nil
      } else {
        output.beginActionLine(
          prefix: actionLinePrefix, seq: seq, id: id, source: reduced.source,
          effect: tracesEffects ? reduced.effect : nil
        ) { ActionCoding.encode(reduced.action, into: &$0) }
      }
      output.patch { stateJSON.writePatch(state, &$0) }
    case .ticks:
      if tick.actions == 0, instance != nil { output.stateLineDue(self) }
      tick.actions += 1
      tick.lastSeq = seq
      if let id { tick.record(id) }
    }
    return seq
  }

  /// Writes the `effect_failed` line: after the pending `state` line, so the two stay in order.
  private func effectFailed(_ error: any Error, origin: ReducedAction<Action>) {
    writeActionError(.effectFailed, origin: origin) { "an effect of \($0) failed: \(error)" }
  }

  /// Writes what a reducer reported as an error line about the action that made it report it.
  private func reportIssue(_ issue: ReducerIssue, origin: ReducedAction<Action>) {
    let code: ErrorCode =
      switch issue.kind {
      case .unknownElement: .unknownElement
      }
    writeActionError(code, origin: origin) { "\($0): \(issue.message)" }
  }

  /// An error line naming the store and `origin`'s action, after the pending `state` line;
  /// `message` is given the action's type.
  private func writeActionError(
    _ code: ErrorCode, origin: ReducedAction<Action>, message: (String) -> String
  ) {
    let action = ActionCoding.encode(origin.action)
    let type = action["type"]?.stringValue ?? action.stringValue ?? "an action"
    endTick()
    output.actionError(
      code, store: descriptor.name, instance: instance, action: action,
      id: Self.messageID(of: origin), message: "\(descriptor.name): \(message(type))")
  }

  /// Decodes an action from a host, refusing one that is not described as a host's (unless
  /// the host may send any): a described effect action before decoding it, so a host cannot
  /// forge an effect's answer, and an action the definition does not describe after, so that a
  /// type that is no action is still reported as unknown.
  private func decodeHostAction(_ action: JSONValue) throws(ProtocolError) -> (
    Action, HostActionEcho?
  ) {
    guard let hostTypes, let type = Self.type(of: action), !hostTypes.contains(type) else {
      return try decode(action)
    }
    if descriptor.actions.contains(where: { $0.type == type }) {
      throw ProtocolError(
        .effectAction,
        "\(descriptor.name): \(type) is sent by the store's effects, not by a host (run with "
          + "--allow-effect-actions to inject it)")
    }
    _ = try decode(action)
    throw ProtocolError(
      .effectAction,
      "\(descriptor.name): \(type) is not described in the store's actions, so a host may not "
        + "send it: the definition must say who sends every case")
  }

  /// The action, and how its line can show it without encoding it: as a known action when it
  /// has no payload, or as it came when encoding it would give that back.
  private func decode(_ action: JSONValue) throws(ProtocolError) -> (Action, HostActionEcho?) {
    var payloadFreeType = Self.payloadFreeType(of: action)
    if let known = payloadFreeType?.withUTF8({ knownAction(type: UnsafeRawBufferPointer($0)) }) {
      return (knownActions[known].action, .known(known))
    }
    if let type = payloadFreeType,
      let entry = type.utf8.withContiguousStorageIfAvailable({ bytes in
        shared.knownActions.first { UnsafeRawBufferPointer(bytes).hasSameBytes(as: $0.type) }
      }) ?? nil
    {
      // Another host of the store decoded it since this one was made.
      knownActions.append(entry)
      return (entry.action, .known(knownActions.count - 1))
    }
    do {
      let (decoded, roundTrips) = try ActionCoding.decodeNoting(Action.self, from: action)
      guard let payloadFreeType else { return (decoded, roundTrips ? .wire(action) : nil) }
      let known = KnownAction(
        type: Array(payloadFreeType.utf8), action: decoded,
        hostActionText: OutputLines.hostActionText(ActionCoding.encode(decoded)),
        isHostAction: hostTypes?.contains(payloadFreeType) ?? true)
      knownActions.append(known)
      shared.knownActions.append(known)
      return (decoded, .known(knownActions.count - 1))
    } catch {
      switch error.kind {
      case .unknownAction:
        throw ProtocolError(.unknownAction, "\(descriptor.name): \(error.message)")
      case .invalidAction:
        throw ProtocolError(.invalidAction, "\(descriptor.name): \(error.message)")
      }
    }
  }

  /// The host's id of the message that caused an action, if it had one.
  private static func messageID(of reduced: ReducedAction<Action>) -> MessageID? {
    reduced.cause(as: MessageID.self)
  }

  /// Sends a host's action with its message's id as the cause. No id is sent as no cause
  /// rather than converted: an absent `(any Sendable)?` made from an absent id is destroyed
  /// through the optional's generic witnesses, about 90 instructions a line.
  private func send(_ action: Action, id: MessageID?) {
    if let id {
      store.send(action, cause: id)
    } else {
      store.send(action)
    }
  }

  /// The position of the known action of this type.
  private func knownAction(type: UnsafeRawBufferPointer) -> Int? {
    // A loop, not `firstIndex(where:)`: a closure isolated to the store actor checks at run
    // time that it runs there, which costs more than the search.
    for index in knownActions.indices where type.hasSameBytes(as: knownActions[index].type) {
      return index
    }
    return nil
  }

  /// The `type` of a wire action, bare or in an object.
  private static func type(of action: JSONValue) -> String? {
    switch action {
    case .string(let type): type
    case .object(let object): object["type"]?.stringValue
    default: nil
    }
  }

  /// `"counter.incrTapped"` or `{"type":"counter.incrTapped"}`: the type, if there is no
  /// payload.
  private static func payloadFreeType(of action: JSONValue) -> String? {
    switch action {
    case .string(let type):
      return type
    case .object(let object) where object.count == 1:
      if case .string(let type)? = object["type"] { return type }
      return nil
    default:
      return nil
    }
  }

  /// What is the same for every host of a store, made by its first host.
  private final class Shared {
    /// The types a host may send: those described as sent by a host, or nil when it may send
    /// any (`--allow-effect-actions`). An action the definition does not describe is not among
    /// them: who sends it was never said, so it is not taken from a host.
    let hostTypes: Set<String>?
    /// The payload-free actions any host of the store decoded (``StoreHost/knownActions``).
    var knownActions: [KnownAction] = []

    init(hostTypes: Set<String>?) {
      self.hostTypes = hostTypes
    }
  }

  /// How an action line shows a host's action without encoding it.
  private enum HostActionEcho {
    /// A payload-free action, by its position in `knownActions` (positions, not entries, are
    /// passed around: copying an entry retains its arrays).
    case known(Int)
    /// The action as the host sent it, which encoding it would give back
    /// (``ActionCoding/decodeNoting(_:from:)``).
    case wire(JSONValue)
  }

  /// A payload-free action by the UTF-8 of its type, with what its host action lines carry
  /// between `seq` (or `id`) and the patch.
  private struct KnownAction {
    let type: [UInt8]
    let action: Action
    let hostActionText: [UInt8]
    /// False for an action a host may not send, met in a replay: a host sending it must take
    /// the path that refuses it.
    let isHostAction: Bool
  }

  private struct Tick {
    var actions = 0
    var lastSeq = 0
    /// The ids of the tick's actions, each once, in order of first appearance.
    private(set) var ids: [MessageID] = []
    /// The same ids, to find a repeated one in constant time: a loop iteration can reduce
    /// thousands of actions, and scanning `ids` for each made a tick quadratic.
    private var seenIDs: Set<MessageID> = []

    mutating func record(_ id: MessageID) {
      if seenIDs.insert(id).inserted { ids.append(id) }
    }
  }
}

import ComposableCore
import JSON

/// Puts a typed store on the wire: decodes its actions, and after every reduction writes the
/// action with the JSON Patch that turns the previous state into the new one.
///
/// The patch is a diff of the state's JSON before and after (see ``StateJSON``), so it is
/// correct by construction whatever the reducer did; hosts that apply every patch to the first
/// snapshot hold the same state as the store.
@StoreActor
public final class StoreHost<State: Encodable, Action: ComposableAction>: HostedStore {
  public let name: String
  public let descriptor: StoreDescriptor
  private let store: Store<State, Action>
  private let output: OutputLines
  private let sequence: ActionSequence
  private let mode: EmitMode
  private let stateJSON: StateJSON<State>
  /// Payload-free actions by type, with their canonical wire form: decoding and echoing them
  /// is a lookup after the first time. Bounded by the number of payload-free cases.
  private var payloadFreeActions: [String: DecodedAction] = [:]
  /// The wire form of the host action being sent, as JSON text, when it is already known.
  private var hostActionWire: [UInt8]?
  private var tick = Tick()
  /// `send`, made in `init`. Through `HostedStore` a generic class's methods run unspecialized
  /// code, which looks up type metadata at run time; a closure made where the store's types are
  /// known runs code specialized for them, down through the store and its reducer.
  private var sendFromHost: (JSONValue, JSONValue?) throws(ProtocolError) -> Void = { _, _ in }

  public convenience init(
    name: String, store: Store<State, Action>, descriptor: StoreDescriptor,
    output: OutputLines, sequence: ActionSequence, mode: EmitMode
  ) {
    self.init(
      name: name, store: store, descriptor: descriptor, output: output, sequence: sequence,
      mode: mode, stateJSON: .encodingWholeState(store.state, store: name))
  }

  /// For a state that lists its fields: each action encodes only the fields it changed.
  public convenience init(
    name: String, store: Store<State, Action>, descriptor: StoreDescriptor,
    output: OutputLines, sequence: ActionSequence, mode: EmitMode
  ) where State: FieldwiseEncodable {
    self.init(
      name: name, store: store, descriptor: descriptor, output: output, sequence: sequence,
      mode: mode, stateJSON: .fieldwise(store.state, store: name))
  }

  private init(
    name: String, store: Store<State, Action>, descriptor: StoreDescriptor,
    output: OutputLines, sequence: ActionSequence, mode: EmitMode, stateJSON: StateJSON<State>
  ) {
    self.name = name
    self.store = store
    self.descriptor = descriptor
    self.output = output
    self.sequence = sequence
    self.mode = mode
    self.stateJSON = stateJSON
    store.didReduce = { [unowned self] reduced, state in
      self.didReduce(reduced, state: state)
    }
    sendFromHost = { [unowned self] action, id throws(ProtocolError) in
      let decoded = try decode(action)
      hostActionWire = decoded.wire
      defer { hostActionWire = nil }
      store.send(decoded.action, cause: id)
    }
  }

  public var effectsInFlight: Int { store.effectsInFlight }

  public var didBecomeIdle: (() -> Void)? {
    get { store.didBecomeIdle }
    set { store.didBecomeIdle = newValue }
  }

  public func cancelAllEffects() -> Int { store.cancelAllEffects() }

  public func send(_ action: JSONValue, id: JSONValue?) throws(ProtocolError) {
    try sendFromHost(action, id)
  }

  public func replay(_ action: JSONValue, source: ActionSource, id: JSONValue?)
    throws(ProtocolError)
  {
    let decoded = try decode(action)
    hostActionWire = source == .host ? decoded.wire : nil
    defer { hostActionWire = nil }
    store.reduceDiscardingEffects(decoded.action, source: source, cause: id)
  }

  public func snapshot() -> JSONValue {
    endTick()
    return stateJSON.current()
  }

  public func endTick() {
    guard tick.actions > 0 else { return }
    output.beginStateLine(store: name, seq: tick.lastSeq, actions: tick.actions, ids: tick.ids)
    output.patch { stateJSON.writePatch(store.state, &$0) }
    tick = Tick()
  }

  private func didReduce(_ reduced: ReducedAction<Action>, state: State) {
    let seq = sequence.next()
    // Most actions carry no id; skip the dynamic cast for them.
    let id = reduced.cause.flatMap { $0 as? JSONValue }
    switch mode {
    case .actions:
      if reduced.source == .host, let known = hostActionWire {
        output.beginActionLine(store: name, seq: seq, id: id, source: .host, actionText: known)
        hostActionWire = nil
      } else {
        output.beginActionLine(
          store: name, seq: seq, id: id, source: reduced.source,
          action: ActionCoding.encode(reduced.action))
      }
      output.patch { stateJSON.writePatch(state, &$0) }
    case .ticks:
      tick.actions += 1
      tick.lastSeq = seq
      if let id, !tick.ids.contains(id) { tick.ids.append(id) }
    }
  }

  private func decode(_ action: JSONValue) throws(ProtocolError) -> DecodedAction {
    let payloadFreeType = Self.payloadFreeType(of: action)
    if let payloadFreeType, let cached = payloadFreeActions[payloadFreeType] { return cached }
    do {
      let decoded = try ActionCoding.decode(Action.self, from: action)
      guard let payloadFreeType else { return DecodedAction(action: decoded, wire: nil) }
      var text: [UInt8] = []
      ActionCoding.encode(decoded).write(into: &text)
      let entry = DecodedAction(action: decoded, wire: text)
      payloadFreeActions[payloadFreeType] = entry
      return entry
    } catch {
      switch error.kind {
      case .unknownAction: throw ProtocolError(.unknownAction, "\(name): \(error.message)")
      case .invalidAction: throw ProtocolError(.invalidAction, "\(name): \(error.message)")
      }
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

  /// A decoded action and, when known without encoding it again, its canonical wire form as
  /// JSON text.
  private struct DecodedAction {
    let action: Action
    let wire: [UInt8]?
  }

  private struct Tick {
    var actions = 0
    var lastSeq = 0
    var ids: [JSONValue] = []
  }
}

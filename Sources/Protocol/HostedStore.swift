import ComposableCore
import JSON

/// What the session needs from a store, whatever its state and action types.
@StoreActor
@_spi(Hosting)
public protocol HostedStore: AnyObject {
  var descriptor: StoreDescriptor { get }
  /// Which instance of the store this is: nil for the default one.
  var instance: InstanceKey? { get }
  /// Decodes a wire action and reduces it; a refused action changes nothing.
  func send(_ action: JSONValue, id: MessageID?) throws(ProtocolError)
  /// Reduces the payload-free action of this type (UTF-8 bytes) if one was sent before, and
  /// returns true; returns false, having done nothing, for a type not seen yet.
  func sendKnownAction(type: UnsafeRawBufferPointer, id: MessageID?) -> Bool
  /// Reduces the action object `text` if its fields read straight from the text, and returns
  /// true; returns false, having done nothing, where the general path must read it (which
  /// also says what is wrong with it).
  func sendActionText(_ text: ActionText, id: MessageID?) -> Bool
  /// Decodes a wire action and reduces it as sent by `source`, without running its effect.
  func replay(_ action: JSONValue, source: ActionSource, id: MessageID?) throws(ProtocolError)
  /// The state as JSON, after writing any pending `state` line so the two stay in order.
  func snapshot() -> JSONValue
  var effectsInFlight: Int { get }
  /// Cancels every running effect for `reason` (traced as what cancelled them); returns how
  /// many were in flight.
  func cancelAllEffects(because reason: String) -> Int
  /// Cancels every running effect (traced as cancelled by `stop`) and stops reporting: the
  /// session is done with this instance. Returns how many effects were in flight.
  func stop() -> Int
  /// The state, when the instance is its state alone (no effect running, no throttle waiting,
  /// no `state` line pending): a host built from it (``StoreFactory/make``) goes on exactly as
  /// this one would. Nil otherwise.
  func parkableState() -> Any?
  /// Called once per loop iteration; writes the merged `state` line in `ticks` mode.
  func endTick()
  /// Called each time the store's last running effect finished.
  var didBecomeIdle: (() -> Void)? { get set }
  /// Set in a durable session (`--state-dir`): gets every line that carries a change of the
  /// state, to be stored before it is written.
  var journal: InstanceJournal? { get set }
}

/// A store as a definition's `_makeHostedStore` makes it for the process: opaque outside the
/// framework, whose session alone drives it.
public struct AnyHostedStore {
  @_spi(Hosting)
  public let store: any HostedStore

  @_spi(Hosting)
  public init(_ store: any HostedStore) {
    self.store = store
  }
}

/// A store the session builds when a line first addresses it.
///
/// Building a store makes the Swift runtime instantiate its reducer's nested generic types:
/// 0.1 to 0.5 ms each here, most of it before `ready` otherwise. Built on demand, `ready`
/// waits for none of it, and a host that drives one store never pays for the others. Nothing a
/// host sees changes: a store is built in its initial state, and building runs no effect.
@_spi(Hosting)
public struct StoreFactory {
  public let name: String
  private let description: DescriptionCache
  /// How the store's state is read back from storage: nil for a store that cannot be durable.
  public let storedState: StoredStateCoding?
  /// Builds an instance of the store (the default one for a nil key), in the store's initial
  /// state or, for an instance that was parked, in the state it was parked in.
  let make: @StoreActor (InstanceKey?, _ parkedState: Any?) -> any HostedStore
  /// Gives a parked instance's host to the instance `key`, in the initial state or the state
  /// it was parked in, as `make` would build it; false if this host cannot be given (then it
  /// is freed and `make` builds one).
  let reuse: @StoreActor (any HostedStore, InstanceKey?, _ parkedState: Any?) -> Bool

  /// `describe` runs the first time the description is asked for: one derived from the store's
  /// types walks them (about 10 ms for the four seed stores), which `ready` need not wait for.
  public init(
    name: String, describe: @escaping () -> StoreDescriptor,
    storedState: StoredStateCoding? = nil,
    make: @escaping @StoreActor (InstanceKey?, _ parkedState: Any?) -> any HostedStore,
    reuse: @escaping @StoreActor (any HostedStore, InstanceKey?, _ parkedState: Any?) -> Bool = {
      _, _, _ in false
    }
  ) {
    self.name = name
    self.description = DescriptionCache(describe)
    self.storedState = storedState
    self.make = make
    self.reuse = reuse
  }

  public init(
    descriptor: StoreDescriptor,
    make: @escaping @StoreActor (InstanceKey?, _ parkedState: Any?) -> any HostedStore
  ) {
    self.init(name: descriptor.name, describe: { descriptor }, make: make)
  }

  public var descriptor: StoreDescriptor { description.value }
}

/// How a durable session reads a store's state back: the three things it needs of the store's
/// types, made where they are concrete.
@_spi(Hosting)
public struct StoredStateCoding {
  /// The JSON of the store's initial state: what a journal without a snapshot applies to.
  public let initialState: () -> JSONValue?
  /// The state's JSON Schema, whose fingerprint tells a folder written by a binary whose
  /// state differs.
  public let stateSchema: () -> JSONValue
  /// The state `json` holds, as `StoreFactory.make` takes it; the error says why it is none.
  public let decode: (_ json: JSONValue) throws -> Any

  public init(
    initialState: @escaping () -> JSONValue?, stateSchema: @escaping () -> JSONValue,
    decode: @escaping (_ json: JSONValue) throws -> Any
  ) {
    self.initialState = initialState
    self.stateSchema = stateSchema
    self.decode = decode
  }
}

/// A description made once, when first asked for.
private final class DescriptionCache {
  private let describe: () -> StoreDescriptor
  private var made: StoreDescriptor?

  init(_ describe: @escaping () -> StoreDescriptor) {
    self.describe = describe
  }

  var value: StoreDescriptor {
    if let made { return made }
    let description = describe()
    made = description
    return description
  }
}

/// Where every store of a session writes: the output lines, the `seq` they share, and whether
/// a reduction makes an action line or joins the loop iteration's state line.
public struct StoreOutput {
  @_spi(Hosting)
  public let lines: OutputLines
  @_spi(Hosting)
  public let sequence: ActionSequence
  @_spi(Hosting)
  public let mode: EmitMode
  /// Whether a host may send the actions only effects send (`--allow-effect-actions`): for
  /// tools that inject what effects would have sent, such as load tests and scenarios.
  @_spi(Hosting)
  public let acceptsEffectActions: Bool
  /// Set to write an `effect` line as each effect starts and ends (`--trace effects`): the
  /// time to give them, in milliseconds since the start (virtual under the virtual clock).
  @_spi(Hosting)
  public let effectTraceTime: (() -> Int)?
  /// Whether effects carry their cause for the dependencies to read (`--record`): see
  /// ``Store/labelsEffects``.
  @_spi(Hosting)
  public let labelsEffects: Bool
  /// The instance whose lines these are: nil for a store's default instance.
  @_spi(Hosting)
  public private(set) var instance: InstanceKey?
  /// What every host of one store shares (see ``sharingHostState()``); nil, each host has its
  /// own.
  @_spi(Hosting)
  public private(set) var hostState: SharedHostState?

  @_spi(Hosting)
  public init(
    lines: OutputLines, sequence: ActionSequence, mode: EmitMode,
    acceptsEffectActions: Bool = false, effectTraceTime: (() -> Int)? = nil,
    labelsEffects: Bool = false
  ) {
    self.labelsEffects = labelsEffects
    self.lines = lines
    self.sequence = sequence
    self.mode = mode
    self.acceptsEffectActions = acceptsEffectActions
    self.effectTraceTime = effectTraceTime
  }

  /// The same output, for hosts that share what is the same for every instance of one store
  /// (the actions decoded so far, who may send which): call it once per store, so that
  /// activating an instance does not decode and describe them again.
  @_spi(Hosting)
  public func sharingHostState() -> StoreOutput {
    var output = self
    output.hostState = SharedHostState()
    return output
  }

  /// The same output, for the lines of the instance `key`.
  @_spi(Hosting)
  public func about(_ key: InstanceKey?) -> StoreOutput {
    var output = self
    output.instance = key
    return output
  }
}

/// What the hosts of one store share, made by the first of them: a box, because the hosts'
/// types are generic and this module's `StoreOutput` is not.
@StoreActor
@_spi(Hosting)
public final class SharedHostState {
  var value: AnyObject?

  nonisolated init() {}
}

/// How reductions reach the host.
@_spi(Hosting)
public enum EmitMode: String, Sendable, CaseIterable {
  /// One `action` line per reduced action, with its patch.
  case actions
  /// One `state` line per loop iteration and store, with the merged patch of all the actions
  /// reduced in it: for hosts that render, not audit.
  case ticks
}

/// Numbers every reduced action, across all stores, in reduction order.
@StoreActor
@_spi(Hosting)
public final class ActionSequence {
  public private(set) var last: Int

  /// `last`: the `seq` numbering goes on from, such as the last one a durable folder stored.
  public init(last: Int = 0) {
    self.last = last
  }

  func next() -> Int {
    last += 1
    return last
  }
}

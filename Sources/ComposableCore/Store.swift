/// Where an action came from: sent by the host, or by one of the store's effects.
public enum ActionSource: String, Sendable {
  /// Sent by the host: a line on stdin, a scenario's `send`, a test's `send`.
  case host
  /// Sent by one of the store's effects.
  case effect
}

/// One action the store has reduced; handed to ``Store/didReduce`` with the state it made.
public struct ReducedAction<Action>: Sendable where Action: Sendable {
  /// The action reduced.
  public let action: Action
  /// Who sent it.
  public let source: ActionSource
  /// The token the host passed with the action that started it all: a host action's own, or,
  /// for an action an effect sent, that of the host action whose reduction started the effect.
  public var cause: (any Sendable)? { boxedCause?.value }
  /// ``cause`` if it is a `T`. Without a cause, no optional existential is made to be cast
  /// and destroyed, which a host asking on every line for its message id would pay.
  public func cause<T>(as type: T.Type) -> T? {
    guard let boxedCause else { return nil }
    return boxedCause.value as? T
  }
  /// What ``Store/didReduce`` numbered this reduction; nil before it was reduced.
  public internal(set) var number: Int?
  /// The effect that sent the action (its ``EffectEvent/effect``); nil for a host action, and
  /// for one a reduction's `.send` queued.
  public internal(set) var effect: UInt64?
  /// A reduced action is copied a few times on its way through a reduction: an optional
  /// existential's every copy and destroy went through its type's value witnesses (190 of a
  /// counter tap's 5,600 instructions), where a box's are a retain and a release, or nothing
  /// for nil.
  let boxedCause: Cause?

  init(action: Action, source: ActionSource, cause: Cause?, effect: UInt64? = nil) {
    self.action = action
    self.source = source
    self.boxedCause = cause
    self.effect = effect
  }
}

/// A reduced action's cause, shared by the actions its effects send.
final class Cause: Sendable {
  let value: any Sendable

  /// Nil for no cause.
  static func boxing(_ value: (any Sendable)?) -> Cause? {
    value.map(Cause.init)
  }

  private init(_ value: any Sendable) {
    self.value = value
  }
}

/// Owns a feature's state, reduces actions strictly one at a time, and runs their effects.
///
/// Actions sent while an action is being reduced (by `.send` effects, or by an observer) queue
/// up and are reduced in order right after it. Effects run as tasks on the store actor's
/// executor; the store counts the ones in flight, keeps cancellation ids and throttle timing
/// to itself, and can cancel everything at shutdown.
@StoreActor
public final class Store<State, Action: Sendable> {
  /// The state after the last reduced action.
  // Unchecked: `didReduce` is handed the state in place (see `observe`); an observer that reads
  // `state` meanwhile reads what it was handed, which nothing writes until it returns.
  @exclusivity(unchecked) public private(set) var state: State

  /// Called after every reduced action, before the effects it returned start. What it returns
  /// numbers the reduction (a host's `seq`): the effects it starts give it as their cause.
  public var didReduce: ((ReducedAction<Action>, State) -> Int?)?
  /// Called when an effect fails with an error no `catch:` handled, with the action whose
  /// reduction returned the effect.
  public var didFailEffect: ((any Error, ReducedAction<Action>) -> Void)?
  /// Called when a reducer reports an issue (a ``ReducerIssue``: `forEach` given an action for
  /// an element that is not there), with the action whose reduction reported it; unset, issues
  /// are dropped.
  public var didReportIssue: ((ReducerIssue, ReducedAction<Action>) -> Void)?
  /// Called each time the last running effect finished.
  public var didBecomeIdle: (() -> Void)?
  /// Called as each effect starts and ends, when set: for tracing. Unset, it costs a check per
  /// effect started.
  public var didChangeEffect: ((EffectEvent) -> Void)?
  /// Whether effects' tasks carry ``TracedEffect/current`` (with their cause) even when not
  /// traced: for a recording, whose dependencies say which action's effect asked. Off, it costs
  /// nothing; on, an allocation per effect.
  public var labelsEffects = false

  private var reducer: (inout State, Action) -> Effect<Action>
  private var pending: [ReducedAction<Action>] = []
  private var isReducing = false

  // The effect machinery's own state, read by its files in Effects/. Neither part depends on
  // the store's types, so asking whether the store is its state alone needs no generic
  // metadata, which cost most of a check made twice per instance activated.
  var running = RunningEffects()
  var throttles = Throttles()

  /// Effects started directly by reductions that have not finished. (Effects nested in them,
  /// such as a cancellable part of a concatenation, are not counted twice.)
  public internal(set) var effectsInFlight = 0

  /// True when the store is its state alone: nothing runs, nothing waits to be reduced, and no
  /// throttle remembers a delivery. A store built again from its state would then behave
  /// exactly as this one.
  public var isOnlyItsState: Bool {
    effectsInFlight == 0 && running.isEmpty && throttles.isEmpty && !isReducing
  }

  // Not specialized where the store is made: a feature's `body` is an opaque type, whose
  // underlying type only its own module knows. Called through the feature's conformance, the
  // reduce function is specialized there, for the whole tree of reducers; specialized here, it
  // would look up the opaque type's metadata by name on every action.
  /// A store in `initialState` that reduces with `reducer`; nothing runs until an action is
  /// sent.
  @_semantics("optimize.sil.specialize.generic.never")
  public init<R: Reducer>(initialState: State, reducer: R)
  where R.State == State, R.Action == Action {
    self.state = initialState
    self.reducer = reducer._makeStoreReduce()
  }

  /// Starts the store over from `state` with `reducer`, reporting where it reported: what a
  /// host does to serve another instance with the store it has (its observers stay set). Only
  /// for a store that is its state alone.
  @_semantics("optimize.sil.specialize.generic.never")
  public func restart<R: Reducer>(from state: State, reducer: R)
  where R.State == State, R.Action == Action {
    // Nothing is pending either: actions queue only while one is being reduced.
    precondition(isOnlyItsState, "restarting a store that is not idle")
    self.state = state
    self.reducer = reducer._makeStoreReduce()
  }

  /// Reduces a host action now, then any actions it queued.
  public func send(_ action: Action) {
    // No cause is passed as no `(any Sendable)?` at all: an absent one, made and then destroyed
    // by the caller through the optional's generic witnesses, cost about 90 instructions each.
    receive(action, source: .host, cause: nil)
  }

  /// Reduces a host action now, then any actions it queued, with `cause` as the cause of it
  /// and of what its effects send. (Called without a cause, ``send(_:)`` runs instead.)
  public func send(_ action: Action, cause: (any Sendable)? = nil) {
    receive(action, source: .host, cause: .boxing(cause))
  }

  /// Reduces `action` as if `source` had sent it and drops the effect it returns: for replaying
  /// a log, which holds what the effects did as the actions they sent.
  public func reduceDiscardingEffects(
    _ action: Action, source: ActionSource, cause: (any Sendable)? = nil
  ) {
    _ = reducer(&state, action)
    _ = didReduce?(ReducedAction(action: action, source: source, cause: .boxing(cause)), state)
  }

  func receive(_ action: Action, source: ActionSource, cause: Cause?, effect: UInt64? = nil) {
    let received = ReducedAction(action: action, source: source, cause: cause, effect: effect)
    guard !isReducing else {
      pending.append(received)
      return
    }
    isReducing = true
    defer { isReducing = false }
    reduce(received)
    // Most reductions queue nothing: the loop and emptying the queue would cost a host action
    // a check of the array's storage each.
    guard !pending.isEmpty else { return }
    var next = 0
    while next < pending.count {
      let queued = pending[next]
      next += 1
      reduce(queued)
    }
    pending.removeAll(keepingCapacity: true)
  }

  /// Queues an action a reduction's `.send` sent, to be reduced right after that reduction.
  func queueSent(_ action: Action, by origin: ReducedAction<Action>) {
    pending.append(ReducedAction(action: action, source: .effect, cause: origin.boxedCause))
  }

  // Consumed: a host action is moved in, where a borrowed one was copied (its cause with it)
  // to be numbered.
  private func reduce(_ received: consuming ReducedAction<Action>) {
    var reduced = received
    let effect = reducer(&state, reduced.action)
    if let didReduce { reduced.number = Self.observe(didReduce, reduced, &state) }
    start(effect, origin: reduced)
  }

  /// Calls `observer` with the state in place. Handed the stored property, the call copied the
  /// state (a retain of everything it holds, and a release after): a twentieth of a counter tap.
  private static func observe(
    _ observer: (ReducedAction<Action>, State) -> Int?, _ reduced: ReducedAction<Action>,
    _ state: inout State
  ) -> Int? {
    observer(reduced, state)
  }
}

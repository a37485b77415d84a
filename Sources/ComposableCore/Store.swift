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
  public let cause: (any Sendable)?
  /// What ``Store/didReduce`` numbered this reduction; nil before it was reduced.
  public internal(set) var number: Int?
  /// The effect that sent the action (its ``EffectEvent/effect``); nil for a host action, and
  /// for one a reduction's `.send` queued.
  public internal(set) var effect: UInt64?
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
  public private(set) var state: State

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

  private var running: [UInt64: RunningEffect] = [:]
  private var cancellable: [EffectID: Set<UInt64>] = [:]
  private var throttles: [EffectID: ThrottleState] = [:]

  /// Effects started directly by reductions that have not finished. (Effects nested in them,
  /// such as a cancellable part of a concatenation, are not counted twice.)
  public private(set) var effectsInFlight = 0

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
    precondition(isOnlyItsState && pending.isEmpty, "restarting a store that is not idle")
    self.state = state
    self.reducer = reducer._makeStoreReduce()
  }

  /// Reduces a host action now, then any actions it queued.
  public func send(_ action: Action, cause: (any Sendable)? = nil) {
    receive(action, source: .host, cause: cause)
  }

  /// Reduces `action` as if `source` had sent it and drops the effect it returns: for replaying
  /// a log, which holds what the effects did as the actions they sent.
  public func reduceDiscardingEffects(
    _ action: Action, source: ActionSource, cause: (any Sendable)? = nil
  ) {
    _ = reducer(&state, action)
    _ = didReduce?(ReducedAction(action: action, source: source, cause: cause), state)
  }

  /// Cancels every running effect, for `reason` (``EffectCancellation/allCancelled(_:)``);
  /// returns how many were in flight.
  @discardableResult
  public func cancelAllEffects(because reason: String) -> Int {
    let count = effectsInFlight
    for token in running.keys { cancel(token, .allCancelled(reason)) }
    return count
  }

  private func receive(
    _ action: Action, source: ActionSource, cause: (any Sendable)?, effect: UInt64? = nil
  ) {
    var received = ReducedAction(action: action, source: source, cause: cause)
    received.effect = effect
    guard !isReducing else {
      pending.append(received)
      return
    }
    isReducing = true
    defer { isReducing = false }
    reduce(received)
    var next = 0
    while next < pending.count {
      let queued = pending[next]
      next += 1
      reduce(queued)
    }
    pending.removeAll(keepingCapacity: true)
  }

  private func reduce(_ received: ReducedAction<Action>) {
    let effect = reducer(&state, received.action)
    var reduced = received
    reduced.number = didReduce?(reduced, state) ?? nil
    start(effect, origin: reduced)
  }

  // MARK: Starting effects

  /// Interprets the synchronous parts of an effect tree at once, so that `.send`, `.cancel`
  /// and the cancellation of in-flight work take effect in reduction order; everything that
  /// must wait runs in a task.
  private func start(_ effect: Effect<Action>, origin: ReducedAction<Action>) {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      pending.append(ReducedAction(action: action, source: .effect, cause: origin.cause))
    case .cancel(let id):
      cancel(id: id, .cancelledByID(origin.number))
    case .issue(let issue):
      didReportIssue?(issue, origin)
    case .cancelPicked(let filter):
      cancel(picked: filter, .cancelledByID(origin.number))
    case .merge(let effects):
      for effect in effects { start(effect, origin: origin) }
    case .concatenate(let effects):
      if let rest = startSynchronousHead(of: effects, origin: origin) {
        spawn(rest, origin: origin, id: nil, isNested: false)
      }
    case .cancellable(let id, let cancelInFlight, let child):
      if cancelInFlight { cancel(id: id, .replaced(origin.number)) }
      var waiting: Effect<Action>? = child
      if case .concatenate(let effects) = child.operation {
        waiting = startSynchronousHead(of: effects, origin: origin)
      }
      if let waiting { spawn(waiting, origin: origin, id: id, isNested: false) }
    case .run, .throttle:
      spawn(effect, origin: origin, id: nil, isNested: false)
    }
  }

  /// Applies the leading `.send`s and `.cancel`s of a concatenation now, as TCA delivers a
  /// `.send` at once: `.concatenate(.send(.willRun), work, .send(.didFinish))` has reduced
  /// `willRun` before any later input. Returns what must wait for a task, if anything.
  private func startSynchronousHead(
    of effects: [Effect<Action>], origin: ReducedAction<Action>
  ) -> Effect<Action>? {
    let firstWaiting = effects.firstIndex { !$0.isSynchronous } ?? effects.endIndex
    for effect in effects[..<firstWaiting] { start(effect, origin: origin) }
    return firstWaiting == effects.endIndex ? nil : .concatenate(effects[firstWaiting...])
  }

  @discardableResult
  private func spawn(
    _ effect: Effect<Action>, origin: ReducedAction<Action>, id: EffectID?, isNested: Bool
  ) -> Task<Void, Never> {
    let token = EffectNumbers.next()
    let traced =
      didChangeEffect == nil && !labelsEffects ? nil : tracedEffect(token, cause: origin.number)
    let task = Task(executorPreference: StoreActor.taskExecutor) { [self] in
      // A task-local value costs an allocation per task: set only when traced (a task started
      // while an effect of this store runs would otherwise see that effect's).
      if let traced {
        await TracedEffect.$current.withValue(traced) {
          await self.runTask(effect, origin: origin, token: token)
        }
      } else {
        await self.runTask(effect, origin: origin, token: token)
      }
    }
    running[token] = RunningEffect(
      task: task, id: id, isNested: isNested, cause: origin.number,
      operation: effect.operatorName)
    if let id { cancellable[id, default: []].insert(token) }
    if !isNested { effectsInFlight += 1 }
    if let didChangeEffect { didChangeEffect(running[token]!.event(token, .started)) }
    return task
  }

  /// What a clock the effect sleeps on tells: the store's observer hears it in order with the
  /// rest, since effects run on the store actor's executor.
  private func tracedEffect(_ token: UInt64, cause: Int?) -> TracedEffect {
    TracedEffect(cause: cause) { [weak self] until in
      StoreActor.assumeIsolated {
        guard let self, let effect = self.running[token] else { return }
        self.didChangeEffect?(effect.event(token, .sleeping(until: until)))
      }
    }
  }

  private func runTask(_ effect: Effect<Action>, origin: ReducedAction<Action>, token: UInt64) async
  {
    await execute(effect, origin: origin, token: token) { [self] action in
      receive(action, source: .effect, cause: origin.cause, effect: token)
    }
    guard let finished = running.removeValue(forKey: token) else { return }
    if let id = finished.id {
      cancellable[id]?.remove(token)
      if cancellable[id]?.isEmpty == true { cancellable[id] = nil }
    }
    if let didChangeEffect, finished.cancellation == nil {
      let end: EffectEvent.Kind =
        if let failure = finished.failure {
          .failed(failure)
        } else if Task.isCancelled {
          .cancelled(.enclosingEffectCancelled)
        } else {
          .finished
        }
      didChangeEffect(finished.event(token, end))
    }
    if !finished.isNested {
      effectsInFlight -= 1
      if effectsInFlight == 0 { didBecomeIdle?() }
    }
  }

  private func cancel(id: EffectID, _ why: EffectCancellation) {
    // Cancelled effects leave their id's set now rather than when their tasks end: in a burst
    // of `cancelInFlight` effects (taps read in one batch of input, before any task ran) each
    // would otherwise cancel every one before it again.
    guard let tokens = cancellable.removeValue(forKey: id) else { return }
    for token in tokens { cancel(token, why) }
  }

  private func cancel(picked filter: EffectIDFilter, _ why: EffectCancellation) {
    for id in cancellable.keys.filter(filter.picks) { cancel(id: id, why) }
  }

  /// Cancels one running effect; the first reason given is the one told.
  private func cancel(_ token: UInt64, _ why: EffectCancellation) {
    guard let effect = running[token] else { return }
    effect.task.cancel()
    guard effect.cancellation == nil else { return }
    running[token]?.cancellation = why
    didChangeEffect?(effect.event(token, .cancelled(why)))
  }

  // MARK: Running effects

  /// Runs an effect tree to completion, as part of the effect `token`; actions it sends go to
  /// `deliver`.
  private func execute(
    _ effect: Effect<Action>, origin: ReducedAction<Action>, token: UInt64,
    deliver: @escaping @StoreActor (Action) -> Void
  ) async {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      guard !Task.isCancelled else { return }
      deliver(action)
    case .cancel(let id):
      cancel(id: id, .cancelledByID(origin.number))
    case .issue(let issue):
      didReportIssue?(issue, origin)
    case .cancelPicked(let filter):
      cancel(picked: filter, .cancelledByID(origin.number))
    case .run(let operation):
      do {
        try await operation(Send(deliver))
      } catch is CancellationError {
      } catch {
        if running[token]?.failure == nil { running[token]?.failure = "\(error)" }
        didFailEffect?(error, origin)
      }
    case .merge(let effects):
      await withTaskGroup(of: Void.self) { group in
        for effect in effects {
          group.addTask {
            await self.execute(effect, origin: origin, token: token, deliver: deliver)
          }
        }
      }
    case .concatenate(let effects):
      for effect in effects {
        guard !Task.isCancelled else { return }
        await execute(effect, origin: origin, token: token, deliver: deliver)
      }
    case .cancellable(let id, let cancelInFlight, let child):
      if cancelInFlight { cancel(id: id, .replaced(origin.number)) }
      let task = spawn(child, origin: origin, id: id, isNested: true)
      await withTaskCancellationHandler {
        await task.value
      } onCancel: {
        task.cancel()
      }
    case .throttle(let throttle, let child):
      await executeThrottled(child, throttle, origin: origin, token: token, deliver: deliver)
    }
  }

  private func executeThrottled(
    _ child: Effect<Action>, _ throttle: ThrottleSettings, origin: ReducedAction<Action>,
    token: UInt64, deliver: @escaping @StoreActor (Action) -> Void
  ) async {
    await execute(child, origin: origin, token: token) { [self] action in
      if admitThrottled(action, throttle, clock: throttle.clock) { deliver(action) }
    }
    if let held = await releaseHeld(throttle, clock: throttle.clock) { deliver(held) }
  }

  /// Delivers at once if the throttle's interval has passed; otherwise holds the action.
  private func admitThrottled<C: Clock<Duration>>(
    _ action: Action, _ throttle: ThrottleSettings, clock: C
  ) -> Bool {
    let now = clock.now
    if let state = throttles[throttle.id], let last = state.lastDelivery as? C.Instant,
      last.duration(to: now) < throttle.interval
    {
      throttles[throttle.id]?.held = throttle.latest ? action : (state.held ?? action)
      return false
    }
    throttles[throttle.id] = ThrottleState(lastDelivery: now, held: nil)
    return true
  }

  /// Waits for the end of the interval and hands back the held action, if one is held and
  /// this run of the throttled effect was not cancelled by a newer one.
  private func releaseHeld<C: Clock<Duration>>(
    _ throttle: ThrottleSettings, clock: C
  ) async -> Action? {
    guard let state = throttles[throttle.id], state.held != nil,
      let last = state.lastDelivery as? C.Instant
    else { return nil }
    do {
      try await clock.sleep(until: last.advanced(by: throttle.interval), tolerance: nil)
    } catch {
      return nil
    }
    guard !Task.isCancelled, let held = throttles[throttle.id]?.held else { return nil }
    throttles[throttle.id] = ThrottleState(lastDelivery: clock.now, held: nil)
    return held
  }

  private struct RunningEffect {
    let task: Task<Void, Never>
    let id: EffectID?
    let isNested: Bool
    /// The number of the reduction that returned it.
    let cause: Int?
    let operation: String
    var cancellation: EffectCancellation?
    var failure: String?

    func event(_ token: UInt64, _ kind: EffectEvent.Kind) -> EffectEvent {
      EffectEvent(effect: token, kind: kind, cause: cause, operation: operation, cancelID: id)
    }
  }

  private struct ThrottleState {
    /// The clock's instant of the last delivery, kept type-erased because each throttle may
    /// use its own clock.
    var lastDelivery: any Sendable
    var held: Action?
  }
}

/// Effects' numbers, shared by every store of the process so that a trace of several stores
/// names each effect once.
@StoreActor
private enum EffectNumbers {
  static var last: UInt64 = 0

  static func next() -> UInt64 {
    last += 1
    return last
  }
}

extension Effect {
  /// The name of the outermost operator, as an ``EffectEvent`` gives it.
  var operatorName: String {
    switch operation {
    case .none: "none"
    case .send: "send"
    case .run: "run"
    case .merge: "merge"
    case .concatenate: "concatenate"
    case .cancellable: "cancellable"
    case .cancel, .cancelPicked: "cancel"
    case .throttle: "throttle"
    case .issue: "issue"
    }
  }

  /// True when the tree holds nothing that must wait, so the store can apply it in place.
  var isSynchronous: Bool {
    switch operation {
    case .none, .send, .cancel, .issue, .cancelPicked: return true
    case .merge(let effects), .concatenate(let effects): return effects.allSatisfy(\.isSynchronous)
    case .run, .cancellable, .throttle: return false
    }
  }
}

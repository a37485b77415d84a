/// The store's effect interpreter. A reduction's effect is interpreted at once as far as it
/// can be (``start(_:origin:)``), so that `.send`, `.cancel` and the cancellation of in-flight
/// work take effect in reduction order, and what must wait runs in a task that interprets the
/// rest (``execute(_:origin:token:deliver:)``). The operations that never wait mean the same
/// in both (``performAtOnce(_:origin:)``).
extension Store {
  // MARK: Starting effects

  func start(_ effect: Effect<Action>, origin: ReducedAction<Action>) {
    if performAtOnce(effect, origin: origin) { return }
    switch effect.operation {
    case .send(let action):
      queueSent(action, by: origin)
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
    case .none, .cancel, .issue, .cancelPicked:
      return
    }
  }

  /// Applies the operations that never wait and mean the same when a reduction returns them
  /// and inside a task; false for any other.
  private func performAtOnce(_ effect: Effect<Action>, origin: ReducedAction<Action>) -> Bool {
    switch effect.operation {
    case .none:
      return true
    case .cancel(let id):
      cancel(id: id, .cancelledByID(origin.number))
      return true
    case .cancelPicked(let filter):
      cancel(picked: filter, .cancelledByID(origin.number))
      return true
    case .issue(let issue):
      didReportIssue?(issue, origin)
      return true
    case .send, .run, .merge, .concatenate, .cancellable, .throttle:
      return false
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
    running.insert(
      RunningEffect(
        task: task, id: id, isNested: isNested, cause: origin.number,
        operation: effect.operatorName),
      as: token)
    if !isNested { effectsInFlight += 1 }
    if let didChangeEffect { didChangeEffect(running[token]!.event(token, .started)) }
    return task
  }

  private func runTask(_ effect: Effect<Action>, origin: ReducedAction<Action>, token: UInt64)
    async
  {
    await execute(effect, origin: origin, token: token) { [self] action in
      receive(action, source: .effect, cause: origin.boxedCause, effect: token)
    }
    guard let finished = running.remove(token) else { return }
    reportEnd(of: finished, token)
    if !finished.isNested {
      effectsInFlight -= 1
      if effectsInFlight == 0 { didBecomeIdle?() }
    }
  }

  // MARK: Running effects

  /// Runs an effect tree to completion, as part of the effect `token`; actions it sends go to
  /// `deliver`.
  private func execute(
    _ effect: Effect<Action>, origin: ReducedAction<Action>, token: UInt64,
    deliver: @escaping @StoreActor (Action) -> Void
  ) async {
    if performAtOnce(effect, origin: origin) { return }
    switch effect.operation {
    case .send(let action):
      guard !Task.isCancelled else { return }
      deliver(action)
    case .run(let operation):
      do {
        try await operation(Send(deliver))
      } catch is CancellationError {
      } catch {
        running.markFailed(token, error)
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
      await execute(child, origin: origin, token: token) { [self] action in
        if throttles.admit(action, throttle, clock: throttle.clock) { deliver(action) }
      }
      if let held = await releaseHeld(throttle, clock: throttle.clock) { deliver(held) }
    case .none, .cancel, .issue, .cancelPicked:
      return
    }
  }

  /// Waits for the end of the interval and hands back the held action, if one is held and
  /// this run of the throttled effect was not cancelled by a newer one.
  private func releaseHeld<C: Clock<Duration>>(_ throttle: ThrottleSettings, clock: C) async
    -> Action?
  {
    guard let due = throttles.release(throttle, clock: clock) else { return nil }
    do {
      try await clock.sleep(until: due, tolerance: nil)
    } catch {
      return nil
    }
    guard !Task.isCancelled else { return nil }
    return throttles.takeHeld(throttle, as: Action.self, at: clock.now)
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

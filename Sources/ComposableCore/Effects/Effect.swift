/// Work a reducer asks the store to do after it changed the state: the only way a feature
/// touches the world.
///
/// An effect is a description, not a running task: the store that receives it from its
/// reducer interprets the tree, so cancellation ids, throttling and in-flight counts are
/// scoped to that store.
///
/// ```swift
/// case .nthPrimeButtonTapped:
///   return .run { [n = state.count] send in
///     await send(.nthPrimeResponse(try await nthPrime(n)))
///   }
///   .cancellable(id: CancelID.nthPrime, cancelInFlight: true)
/// ```
public struct Effect<Action: Sendable>: Sendable {
  indirect enum Operation: Sendable {
    case none
    case send(Action)
    case run(@Sendable (Send<Action>) async throws -> Void)
    case merge([Effect])
    case concatenate([Effect])
    case cancellable(id: EffectID, cancelInFlight: Bool, Effect)
    case cancel(id: EffectID)
    case throttle(ThrottleSettings, Effect)
    case issue(ReducerIssue)
    /// Cancels the effects of every id the filter picks among those running: how `forEach`
    /// cancels the effects of removed elements without listing the elements it had.
    case cancelPicked(EffectIDFilter)
  }

  let operation: Operation

  init(_ operation: Operation) { self.operation = operation }
}

extension Effect {
  /// No work.
  public static var none: Self { Self(.none) }

  /// Feeds `action` back into the store right after the action being reduced, before any
  /// other input: the way to share logic between actions.
  public static func send(_ action: Action) -> Self { Self(.send(action)) }

  /// Runs asynchronous work that may send any number of actions back.
  ///
  /// Cancellation is silent: once the effect is cancelled its `send` drops actions, and a
  /// `CancellationError` it throws is not an error. Any other error goes to `handler`, or,
  /// without one, is reported by the store as an unhandled effect failure.
  ///
  /// ```swift
  /// .run { send in
  ///   let primes = try await storage.load()
  ///   await send(.loadedFavoritePrimes(primes))
  /// } catch: { error, send in
  ///   await send(.storageFailed(operation: .load, message: "\(error)"))
  /// }
  /// ```
  public static func run(
    _ operation: @escaping @Sendable (Send<Action>) async throws -> Void,
    catch handler: (@Sendable (any Error, Send<Action>) async -> Void)? = nil
  ) -> Self {
    guard let handler else { return Self(.run(operation)) }
    return Self(
      .run { send in
        do {
          try await operation(send)
        } catch is CancellationError {
          throw CancellationError()
        } catch {
          await handler(error, send)
        }
      })
  }

  /// Runs every effect at once; finishes when all of them finished.
  public static func merge(_ effects: Self...) -> Self { merge(effects) }

  /// Runs every effect at once; finishes when all of them finished.
  public static func merge(_ effects: some Sequence<Self>) -> Self {
    let effects = effects.filter { !$0.isNone }
    switch effects.count {
    case 0: return .none
    case 1: return effects[0]
    default: return Self(.merge(effects))
    }
  }

  /// Runs the effects one after another: each starts only when the previous one *finished*,
  /// so `.concatenate(.cancel(id: timer), fetchOnce)` stops the timer before fetching.
  public static func concatenate(_ effects: Self...) -> Self { concatenate(effects) }

  /// Runs the effects one after another, each after the previous one finished.
  public static func concatenate(_ effects: some Sequence<Self>) -> Self {
    let effects = effects.filter { !$0.isNone }
    switch effects.count {
    case 0: return .none
    case 1: return effects[0]
    default: return Self(.concatenate(effects))
    }
  }

  /// Makes the effect cancellable with `.cancel(id:)`. With `cancelInFlight`, starting it
  /// first cancels every effect of this store still running under the same id, which is how
  /// "only the latest request counts" is written.
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    if isNone { return self }
    return Self(.cancellable(id: EffectID(id), cancelInFlight: cancelInFlight, self))
  }

  /// Cancels every effect of this store running under `id`; does nothing if none runs.
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(.cancel(id: EffectID(id)))
  }

  /// Turns every action the effect sends into another one: how a parent embeds the effects of
  /// a child feature (`Scope` uses it).
  public func map<NewAction: Sendable>(
    _ transform: @escaping @Sendable (Action) -> NewAction
  ) -> Effect<NewAction> {
    map(transform, in: nil)
  }

  /// `map`, with every cancellation id in the tree (of `cancellable`, `cancel` and `throttle`)
  /// moved into `scope`: how `forEach` keeps each element's ids apart from another's.
  func map<NewAction: Sendable>(
    _ transform: @escaping @Sendable (Action) -> NewAction, in scope: ElementScope?
  ) -> Effect<NewAction> {
    func id(_ id: EffectID) -> EffectID { scope?.effectID(id) ?? id }
    switch operation {
    case .none:
      return .none
    case .send(let action):
      return .send(transform(action))
    case .run(let operation):
      return Effect<NewAction>(
        .run { send in try await operation(Send { action in send(transform(action)) }) })
    case .merge(let effects):
      return Effect<NewAction>(.merge(effects.map { $0.map(transform, in: scope) }))
    case .concatenate(let effects):
      return Effect<NewAction>(
        .concatenate(effects.map { $0.map(transform, in: scope) }))
    case .cancellable(let cancelID, let cancelInFlight, let effect):
      return Effect<NewAction>(
        .cancellable(
          id: id(cancelID), cancelInFlight: cancelInFlight,
          effect.map(transform, in: scope)))
    case .cancel(let cancelID):
      return Effect<NewAction>(.cancel(id: id(cancelID)))
    case .throttle(let settings, let effect):
      return Effect<NewAction>(
        .throttle(
          settings.withID(id(settings.id)), effect.map(transform, in: scope)))
    case .issue(let issue):
      return Effect<NewAction>(.issue(issue))
    case .cancelPicked(let filter):
      return Effect<NewAction>(.cancelPicked(scope.map(filter.within) ?? filter))
    }
  }

  /// Combines with another effect to run at the same time. (Composed reducers call this on
  /// every action, mostly with `.none` on one side, so it does not allocate then.)
  public func merge(with other: Self) -> Self {
    if other.isNone { return self }
    if isNone { return other }
    return Self(.merge([self, other]))
  }

  /// Combines with another effect to run after this one finished.
  public func concatenate(with other: Self) -> Self { .concatenate(self, other) }

  var isNone: Bool {
    if case .none = operation { return true }
    return false
  }
}

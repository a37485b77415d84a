import ComposableDependencies

/// A random todo, fetched on demand and refreshed automatically every few seconds.
public struct RandomTodoReducer: Reducer {
  enum CancelID { case timer, fetch }

  let dependencies: RandomTodoDependencies

  public init(dependencies: RandomTodoDependencies) {
    self.dependencies = dependencies
  }

  public func reduce(into state: inout RandomTodoState, action: RandomTodoAction) -> Effect<
    RandomTodoAction
  > {
    switch action {
    case .viewDidAppear:
      guard !state.isAutoRefreshing else { return .none }
      state.isAutoRefreshing = true
      return .run { [dependencies] send in
        // A local, not a capture-list binding: only a local opens to the generic parameter.
        let clock = dependencies.clock
        await tick(every: dependencies.refreshInterval, on: clock, send: send)
      }
      .cancellable(id: CancelID.timer, cancelInFlight: true)

    case .timerTicked:
      return fetch(&state)

    case .clickButton:
      state.isAutoRefreshing = false
      return .concatenate(.cancel(id: CancelID.timer), fetch(&state))

    case .stopRandomText:
      state.isAutoRefreshing = false
      return .cancel(id: CancelID.timer)

    case .fetchResult(.success(let todo)):
      state.isFetching = false
      state.todo = todo
      state.failure = nil
      return .none

    case .fetchResult(.failure(let failure)):
      state.isFetching = false
      state.todo = nil
      state.failure = failure
      return .none
    }
  }

  /// One fetch of a random todo; a newer fetch replaces one still in flight, so results never
  /// arrive out of order.
  private func fetch(_ state: inout RandomTodoState) -> Effect<RandomTodoAction> {
    state.isFetching = true
    return .run { [dependencies] send in
      let todo = try await dependencies.fetchTodo(dependencies.randomTodoID())
      await send(.fetchResult(.success(todo)))
    } catch: { error, send in
      await send(.fetchResult(.failure(RequestFailure(error))))
    }
    .cancellable(id: CancelID.fetch, cancelInFlight: true)
  }
}

/// Sends `timerTicked` every `interval`; generic so the dependency's `any Clock` opens to a
/// concrete clock for `timer(interval:)`.
private func tick<C: Clock<Duration>>(
  every interval: Duration, on clock: C, send: Send<RandomTodoAction>
) async {
  for await _ in clock.timer(interval: interval) {
    await send(.timerTicked)
  }
}

/// Sends actions from a running effect back into its store.
///
/// Calls hop to the store's actor; after the effect was cancelled they do nothing, so a
/// response that raced with cancellation never reaches the reducer.
@StoreActor
public struct Send<Action: Sendable>: Sendable {
  let send: @StoreActor (Action) -> Void

  /// Sends through `send`, on the store actor.
  public nonisolated init(_ send: @escaping @StoreActor (Action) -> Void) {
    self.send = send
  }

  /// Sends `action` to the store, unless the effect was cancelled: `await send(.loaded(items))`.
  public func callAsFunction(_ action: Action) {
    guard !Task.isCancelled else { return }
    send(action)
  }
}

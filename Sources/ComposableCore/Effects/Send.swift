/// Sends actions from a running effect back into its store.
///
/// Calls hop to the store's actor; after the effect was cancelled they do nothing, so a
/// response that raced with cancellation never reaches the reducer.
@StoreActor
public struct Send<Action: Sendable>: Sendable {
  let send: @StoreActor (Action) -> Void

  public nonisolated init(_ send: @escaping @StoreActor (Action) -> Void) {
    self.send = send
  }

  public func callAsFunction(_ action: Action) {
    guard !Task.isCancelled else { return }
    send(action)
  }
}

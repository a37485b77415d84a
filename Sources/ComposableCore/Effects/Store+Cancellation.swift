/// Cancelling a store's effects: by id (`.cancel`, `cancelInFlight`), by a filter of ids
/// (`forEach` for removed elements), and all at once (stopping an instance, shutting down).
extension Store {
  /// Cancels every running effect, for `reason` (``EffectCancellation/allCancelled(_:)``);
  /// returns how many were in flight.
  @discardableResult
  public func cancelAllEffects(because reason: String) -> Int {
    let count = effectsInFlight
    for token in running.tokens { cancel(token, .allCancelled(reason)) }
    return count
  }

  func cancel(id: EffectID, _ why: EffectCancellation) {
    for token in running.takeTokens(under: id) { cancel(token, why) }
  }

  func cancel(picked filter: EffectIDFilter, _ why: EffectCancellation) {
    for id in running.ids(pickedBy: filter) { cancel(id: id, why) }
  }

  /// Cancels one running effect; the first reason given is the one told.
  private func cancel(_ token: UInt64, _ why: EffectCancellation) {
    guard let effect = running[token] else { return }
    effect.task.cancel()
    guard running.markCancelled(token, why) != nil else { return }
    didChangeEffect?(effect.event(token, .cancelled(why)))
  }
}

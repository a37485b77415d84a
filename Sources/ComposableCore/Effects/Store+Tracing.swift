/// What a store tells ``Store/didChangeEffect`` of its effects besides their start: their
/// sleeps, through the task-local ``TracedEffect``, and how each ended.
extension Store {
  /// What a clock the effect sleeps on tells: the store's observer hears it in order with the
  /// rest, since effects run on the store actor's executor.
  func tracedEffect(_ token: UInt64, cause: Int?) -> TracedEffect {
    TracedEffect(cause: cause) { [weak self] until in
      StoreActor.assumeIsolated {
        guard let self, let effect = self.running[token] else { return }
        self.didChangeEffect?(effect.event(token, .sleeping(until: until)))
      }
    }
  }

  /// Tells how an effect whose task ended ended, unless its cancellation was told already.
  func reportEnd(of finished: RunningEffect, _ token: UInt64) {
    guard let didChangeEffect, finished.cancellation == nil else { return }
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
}

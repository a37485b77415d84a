/// A moment in the life of one effect a store runs, told to ``Store/didChangeEffect`` so that a
/// host can show effects start, end and get cancelled, each tied to the action that started it.
///
/// An effect here is what the store runs as one task: the part of a reducer's effect that must
/// wait (a `.run`, or a `.merge` or `.concatenate` holding one, a `.throttle`), and each
/// `.cancellable` part started while another effect runs. Its synchronous parts (`.send`,
/// `.cancel`) take effect at once and are not effects of their own.
///
/// ```swift
/// store.didChangeEffect = { event in
///   print(event.effect, event.kind, "started by", event.cause ?? "?")
/// }
/// ```
public struct EffectEvent: Sendable, Equatable {
  /// What happened to the effect.
  public enum Kind: Sendable, Equatable {
    /// The store started running it.
    case started
    /// It waits on the ``VirtualClock`` until this time since the clock's start (a timer, a
    /// debounce, a throttle's interval).
    case sleeping(until: Duration)
    /// Its work ended, whatever actions it sent.
    case finished
    /// It was cancelled before its work ended: ``EffectCancellation`` says by what.
    case cancelled(EffectCancellation)
    /// A `.run` in it threw an error no `catch:` handled (the first, when several did); the
    /// effect's other work, if any, still ran.
    case failed(String)
  }

  /// Unique among the effects of every store of the process: 1, 2, 3, … in the order they
  /// started.
  public let effect: UInt64
  /// What happened.
  public let kind: Kind
  /// What the store's observer numbered the reduction that returned the effect (the `seq` of
  /// its action on the wire); nil when the observer numbers none.
  public let cause: Int?
  /// The outermost operator of what runs: `run`, `merge`, `concatenate` or `throttle`.
  public let operation: String
  /// The id it is cancellable by, if any.
  public let cancelID: EffectID?

  /// An event as a store reports it; tests and hosts that replay events make their own.
  public init(
    effect: UInt64, kind: Kind, cause: Int?, operation: String, cancelID: EffectID? = nil
  ) {
    self.effect = effect
    self.kind = kind
    self.cause = cause
    self.operation = operation
    self.cancelID = cancelID
  }
}

extension EffectEvent {
  /// How a test report names an effect still running: `effect 2 (run, cancellable by
  /// nthPrime), started by counter.nthPrimeButtonTapped`, `startedBy` naming its cause.
  public static func runningDescription(
    effect: String, operation: String, cancelID: String?, startedBy: String?
  ) -> String {
    let id = cancelID.map { ", cancellable by \($0)" } ?? ""
    return "effect \(effect) (\(operation)\(id))" + (startedBy.map { ", started by \($0)" } ?? "")
  }
}

/// Why an effect was cancelled.
public enum EffectCancellation: Sendable, Equatable {
  /// A reduction returned `.cancel(id:)` for it; the number of that reduction.
  case cancelledByID(Int?)
  /// A newer effect with its id and `cancelInFlight: true` replaced it; the number of the
  /// reduction that returned the newer one.
  case replaced(Int?)
  /// The effect it runs inside was cancelled.
  case enclosingEffectCancelled
  /// The store cancelled every effect (``Store/cancelAllEffects(because:)``), for the reason
  /// given: the process ending on `quit`, the end of input, a signal.
  case allCancelled(String)
}

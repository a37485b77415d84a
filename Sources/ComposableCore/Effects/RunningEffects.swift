/// The effects a store started that have not ended, by number, and the numbers under each
/// cancellation id: what cancelling by id, by filter and all at once reads.
struct RunningEffects {
  private var byToken: [UInt64: RunningEffect] = [:]
  private var byID: [EffectID: Set<UInt64>] = [:]

  var isEmpty: Bool { byToken.isEmpty }
  var tokens: [UInt64] { Array(byToken.keys) }

  subscript(token: UInt64) -> RunningEffect? { byToken[token] }

  mutating func insert(_ effect: RunningEffect, as token: UInt64) {
    byToken[token] = effect
    if let id = effect.id { byID[id, default: []].insert(token) }
  }

  /// Takes out an effect whose task ended.
  mutating func remove(_ token: UInt64) -> RunningEffect? {
    guard let finished = byToken.removeValue(forKey: token) else { return nil }
    if let id = finished.id, byID[id] != nil {
      byID[id]!.remove(token)
      if byID[id]!.isEmpty { byID[id] = nil }
    }
    return finished
  }

  /// The effects under `id`, which leave its set now rather than when their tasks end: in a
  /// burst of `cancelInFlight` effects (taps read in one batch of input, before any task ran)
  /// each would otherwise cancel every one before it again.
  mutating func takeTokens(under id: EffectID) -> Set<UInt64> {
    byID.removeValue(forKey: id) ?? []
  }

  func ids(pickedBy filter: EffectIDFilter) -> [EffectID] {
    byID.keys.filter(filter.picks)
  }

  /// Marks the effect cancelled for `why` and returns it, or nil when it was cancelled before:
  /// the first reason given is the one told.
  mutating func markCancelled(_ token: UInt64, _ why: EffectCancellation) -> RunningEffect? {
    guard let effect = byToken[token], effect.cancellation == nil else { return nil }
    byToken[token]!.cancellation = why
    return effect
  }

  /// Keeps the first error an effect failed with, for the event that ends it.
  mutating func markFailed(_ token: UInt64, _ error: any Error) {
    if byToken[token] != nil, byToken[token]!.failure == nil {
      byToken[token]!.failure = "\(error)"
    }
  }
}

/// An effect a store started, until it ends.
struct RunningEffect {
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

/// Effects' numbers, shared by every store of the process so that a trace of several stores
/// names each effect once.
@StoreActor
enum EffectNumbers {
  private static var last: UInt64 = 0

  static func next() -> UInt64 {
    last += 1
    return last
  }
}

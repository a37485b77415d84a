import ComposableDependencies

/// The counter screen: a number, and a button asking for the nth prime where n is the number.
@ComposableAction
public enum CounterAction: Equatable {
  /// Adds one to count.
  case incrTapped
  /// Subtracts one from count.
  case decrTapped
  /// Sets count, as if typed into the field.
  case countChanged(Int)
  /// Asks for the count-th prime; a newer request cancels an older one.
  case nthPrimeButtonTapped
  /// The answer: the prime, or null when there is none.
  @SentByEffect
  case nthPrimeResponse(Int?)
  /// Dismisses the alert and cancels a request in flight.
  case alertDismissButtonTapped
}

public struct CounterState: Equatable, Sendable {
  public var count: Int
  /// The n being computed, while a request is in flight.
  public var nthPrimeRequest: Int?
  public var alertNthPrime: PrimeAlert?
  public var alertNthPrimeFailure: NthPrimeFailure?
}

/// "The 5th prime is 11."
public struct PrimeAlert: Equatable, Codable, Sendable {
  public var n: Int
  public var prime: Int

  public init(n: Int, prime: Int) {
    self.n = n
    self.prime = prime
  }
}

/// Why there is no answer for n, as the alert shows it.
public struct NthPrimeFailure: Equatable, Codable, Sendable {
  public var n: Int
  public var message: String

  public init(n: Int, message: String) {
    self.n = n
    self.message = message
  }
}

public struct CounterReducer: Reducer {
  enum CancelID { case nthPrime }

  let nthPrime: NthPrimeClient

  public init(nthPrime: NthPrimeClient) {
    self.nthPrime = nthPrime
  }

  public func reduce(into state: inout CounterState, action: CounterAction) -> Effect<
    CounterAction
  > {
    switch action {
    case .incrTapped:
      if state.count < Int.max { state.count += 1 }
      return .none

    case .decrTapped:
      if state.count > Int.min { state.count -= 1 }
      return .none

    case .countChanged(let count):
      state.count = count
      return .none

    case .nthPrimeButtonTapped:
      let n = state.count
      state.nthPrimeRequest = n
      state.alertNthPrime = nil
      state.alertNthPrimeFailure = nil
      return .run { [nthPrime] send in
        await send(.nthPrimeResponse(try await nthPrime.nthPrime(n)))
      } catch: { _, send in
        await send(.nthPrimeResponse(nil))
      }
      .cancellable(id: CancelID.nthPrime, cancelInFlight: true)

    case .nthPrimeResponse(let prime):
      let n = state.nthPrimeRequest ?? state.count
      state.nthPrimeRequest = nil
      if let prime {
        state.alertNthPrime = PrimeAlert(n: n, prime: prime)
      } else {
        state.alertNthPrimeFailure = NthPrimeFailure(n: n, message: failureMessage(n: n))
      }
      return .none

    case .alertDismissButtonTapped:
      state.alertNthPrime = nil
      state.alertNthPrimeFailure = nil
      state.nthPrimeRequest = nil
      return .cancel(id: CancelID.nthPrime)
    }
  }

  private func failureMessage(n: Int) -> String {
    if n < 1 {
      return "There is no \(Ordinal.text(n)) prime: n must be 1 or more."
    }
    if let largestN = nthPrime.largestN, n > largestN {
      return
        "The \(Ordinal.text(n)) prime is out of range: the largest n answered is \(largestN)."
    }
    return "The \(Ordinal.text(n)) prime could not be computed."
  }
}

/// English ordinals for alert text: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st. Public for the
/// store's live clients, whose failures word the nth prime as the alerts do.
public enum Ordinal {
  public static func text(_ n: Int) -> String {
    let lastTwo = n.magnitude % 100
    let suffix: String
    switch (lastTwo, lastTwo % 10) {
    case (11...13, _): suffix = "th"
    case (_, 1): suffix = "st"
    case (_, 2): suffix = "nd"
    case (_, 3): suffix = "rd"
    default: suffix = "th"
    }
    return "\(n)\(suffix)"
  }
}

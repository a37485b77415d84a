import ComposableCore

/// A dependency of a store that the services do not cover (a computation, a service of its
/// own), declared once, as a static member listed in the definition's
/// ``StoreDefinition/dependencies``. Its answers are keyed by text: ``Services/dependency(_:live:)``
/// gives the form each command needs, so a store never chooses it:
/// - `run`: the live function;
/// - `run --record`: the live function, each answer also written into the recording, so that
///   `replay --to-scenario` scripts it;
/// - `test`: the answers of the scenario's steps named after the dependency,
///   `{"nthPrimes": {"6": 13}}`, on the scenario's clock.
///
/// ```swift
/// static let nthPrimes = StoreDependency<Int, Int?>("nthPrimes")
/// static let dependencies: [any NamedDependency] = [nthPrimes]
/// …
/// let nthPrime = services.dependency(nthPrimes) { n in try await sieve(n) }
/// ```
public struct StoreDependency<Input: Sendable, Answer: Codable & Sendable>: NamedDependency {
  public let name: String
  /// The key a scenario answers an input under, and a recording writes it with.
  public let key: @Sendable (Input) -> String

  public init(_ name: String, key: @escaping @Sendable (Input) -> String) {
    self.name = name
    self.key = key
  }
}

extension StoreDependency where Input: CustomStringConvertible {
  /// Keyed by the input's description: `"6"` for the input 6.
  public init(_ name: String) {
    self.init(name) { $0.description }
  }
}

/// What a definition lists of its dependencies: their names are the scenario steps that
/// script them.
public protocol NamedDependency: Sendable {
  var name: String { get }
}

/// The answer a scenario did not give: the scenario fails, with the problem noted where the
/// answer was asked for, and the effect that asked sees this error.
public struct MissingScriptedAnswer: Error, CustomStringConvertible {
  public let dependency: String
  public let key: String

  public var description: String { "no scripted \(dependency) answer for \(key)" }
}

extension Services {
  /// `dependency` as this command needs it, from its `live` function: see ``StoreDependency``.
  @StoreActor
  public func dependency<Input, Answer>(
    _ dependency: StoreDependency<Input, Answer>,
    live: @escaping @Sendable (Input) async throws -> Answer
  ) -> @Sendable (Input) async throws -> Answer {
    let name = dependency.name
    let key = dependency.key
    if let answers = scripted(name) {
      return { input in
        let key = key(input)
        guard let answer = try await answers.answer(Answer.self, for: key) else {
          throw MissingScriptedAnswer(dependency: name, key: key)
        }
        return answer
      }
    }
    guard answerLog != nil else { return live }
    return { [self] input in
      try await recordingAnswer(name, key: key(input)) { try await live(input) }
    }
  }
}

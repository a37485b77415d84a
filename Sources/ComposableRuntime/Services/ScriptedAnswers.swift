import ComposableCore
import JSON

/// A scenario's answers for one dependency, by key: `{"nthPrimes": {"6": 13, "7": null}}`
/// answers `"6"` with `13` and `"7"` with `null`; the key `"*"` answers any key no other names.
/// Later steps add to or replace earlier answers.
/// A step's `"delay"` (virtual milliseconds) holds its answers back on the scenario's clock, so
/// a request can stay in flight and be cancelled: `{"nthPrimes": {"6": 13}, "delay": 1000}`.
///
/// A key with no answer is a problem that fails the scenario: like a request nothing canned
/// answers, it is something the scenario did not foresee.
@StoreActor
package final class ScriptedAnswers {
  /// The dependency's name, as the scenario's steps give it.
  package nonisolated let name: String
  private var answers: [String: (answer: JSONValue, delay: Duration)] = [:]
  private let clock: any Clock<Duration>
  private let problem: (String) -> Void

  /// `clock`: what a delayed answer waits on (the scenario's virtual clock).
  package init(name: String, clock: any Clock<Duration>, problem: @escaping (String) -> Void) {
    self.name = name
    self.clock = clock
    self.problem = problem
  }

  /// Adds the answers of a step: an object from key to answer, each given `delay` after it is
  /// asked for.
  package func add(_ answers: JSONValue, delay: Duration = .zero) throws(StoreOptionError) {
    guard case .object(let object) = answers else {
      throw StoreOptionError("\"\(name)\" maps each key to its answer: {\"key\": answer}")
    }
    for (key, value) in object { self.answers[key] = (value, delay) }
  }

  /// The answer for `key`, after its delay, or nil after noting the problem. Throws
  /// `CancellationError` when the asking effect is cancelled during the delay.
  package func answer(for key: String) async throws -> JSONValue? {
    guard let (answer, delay) = answers[key] ?? answers["*"] else {
      problem("unexpected \(name) request for \(key): no answer in \"\(name)\"")
      return nil
    }
    if delay > .zero { try await clock.sleep(for: delay) }
    return answer
  }

  /// The answer for `key` decoded as `T`, after its delay; nil, after noting the problem, when
  /// there is none or it is not a `T`.
  package func answer<T: Decodable>(_ type: T.Type, for key: String) async throws -> T? {
    guard let json = try await answer(for: key) else { return nil }
    do {
      return try JSONValueDecoder().decode(T.self, from: json)
    } catch {
      problem("the \(name) answer for \(key) is not a \(T.self): \(json.excerpt)")
      return nil
    }
  }
}

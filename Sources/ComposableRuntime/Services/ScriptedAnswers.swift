import ComposableCore
import JSON

/// A scenario's answers for one dependency, by key: `{"nthPrimes": {"6": 13, "7": null}}`
/// answers `"6"` with `13` and `"7"` with `null`. Later steps add to or replace earlier answers.
///
/// A key with no answer is a problem that fails the scenario: like a request nothing canned
/// answers, it is something the scenario did not foresee.
@StoreActor
public final class ScriptedAnswers {
  public nonisolated let name: String
  private var answers: [String: JSONValue] = [:]
  private let problem: (String) -> Void

  public init(name: String, problem: @escaping (String) -> Void) {
    self.name = name
    self.problem = problem
  }

  /// Adds the answers of a step: an object from key to answer.
  public func add(_ answers: JSONValue) throws(StoreOptionError) {
    guard case .object(let object) = answers else {
      throw StoreOptionError("\"\(name)\" maps each key to its answer: {\"key\": answer}")
    }
    for (key, value) in object { self.answers[key] = value }
  }

  /// The answer for `key`, or nil after noting the problem.
  public func answer(for key: String) -> JSONValue? {
    guard let answer = answers[key] else {
      problem("unexpected \(name) request for \(key): no answer in \"\(name)\"")
      return nil
    }
    return answer
  }

  /// The answer for `key` decoded as `T`; nil, after noting the problem, when there is none or
  /// it is not a `T`.
  public func answer<T: Decodable>(_ type: T.Type, for key: String) -> T? {
    guard let json = answer(for: key) else { return nil }
    do {
      return try JSONValueDecoder().decode(T.self, from: json)
    } catch {
      problem("the \(name) answer for \(key) is not a \(T.self): \(json.excerpt)")
      return nil
    }
  }
}

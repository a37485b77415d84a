import ComposableCore
import JSON

/// Under `run --record`, what the stores' dependencies answered, written into the recording as
/// `answer` lines: an HTTP response, a WebSocket event or message, a message the client sent,
/// the answer of a dependency a store scripts by name.
///
/// `replay --to-scenario` turns them into a scenario's scripted services, so the regression
/// test it writes runs the real effects again against what the live run saw, like a VCR
/// cassette. Each line is written when the effect receives the answer, before the action the
/// effect sends with it, and says which action's reduction started the asking effect (`after`,
/// a seq): the scenario answers at the step of that action.
///
/// ```json
/// {"type":"answer","dependency":"http","after":4,"url":"http://127.0.0.1:8080/todos/57",
///  "status":200,"body":"{\"id\":57,…}","t":812}
/// ```
@StoreActor
package final class AnswerLog {
  private let write: (JSONObject) -> Void
  private let lastSeq: () -> Int

  /// `write` adds the time and writes the line; `lastSeq` is the seq of the last reduced
  /// action.
  package init(write: @escaping (JSONObject) -> Void, lastSeq: @escaping () -> Int) {
    self.write = write
    self.lastSeq = lastSeq
  }

  /// The seq of the action whose reduction started the effect asking now (the last reduced
  /// action, for a task no store started).
  package var position: Int { TracedEffect.current?.cause ?? lastSeq() }

  /// Writes one answer of `dependency`.
  package func record(_ dependency: String, after position: Int? = nil, _ fields: JSONObject) {
    var line: JSONObject = ["type": "answer", "dependency": .string(dependency)]
    if let position { line["after"] = .int(position) }
    for (key, value) in fields { line[key] = value }
    write(line)
  }
}

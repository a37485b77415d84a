import ComposableRuntime
import JSON
import Protocol

#if canImport(Glibc)
  import Glibc
#endif

/// One reduced action of a recording.
struct RecordedAction {
  /// Line number in the file.
  let line: Int
  let seq: Int
  let address: InstanceAddress
  var store: String { address.store }
  let source: String
  let id: MessageID?
  let action: JSONValue
  /// With `--trace effects`: the number of the effect that sent it.
  let effectNumber: Int?
  let patch: JSONValue
  /// Milliseconds since the header's `startTime`.
  let elapsed: Int

  /// `json` parsed from `text`, line `line` of the file.
  init(_ json: JSONValue, text: ArraySlice<UInt8>, line: Int) throws(RecordingError) {
    guard case .object(let object) = json, object["type"] == "action" else {
      throw RecordingError(line: line, "expected an action or effect line")
    }
    guard let seq = object["seq"]?.intValue, let store = object["store"]?.stringValue,
      let source = object["source"]?.stringValue, let action = object["action"],
      case .array? = object["patch"], let elapsed = object["t"]?.intValue
    else {
      throw RecordingError(
        line: line, "an action line needs seq, store, source, action, patch and t")
    }
    self.line = line
    self.seq = seq
    self.address = InstanceAddress(store, try Self.instance(in: json, line: line))
    self.source = source
    self.id = object["id"].flatMap { id in text.withUnsafeBytes { MessageID(id, in: $0) } }
    self.action = action
    self.effectNumber = object["effect"]?.intValue
    self.patch = object["patch"]!
    self.elapsed = try checkedTime(elapsed, line: line)
  }
}

extension RecordedAction {
  /// The line's `instance`, checked as the process checks a host's.
  static func instance(in json: JSONValue, line: Int) throws(RecordingError) -> InstanceKey? {
    do {
      return try InstanceAddress.instance(in: json)
    } catch {
      throw RecordingError(line: line, error.message)
    }
  }
}

/// One `effect` line of a recording made with `run --trace effects`: a moment in the life of
/// an effect. A replay re-reduces the actions and skips these; the timeline draws them.
struct RecordedEffect {
  /// Line number in the file.
  let line: Int
  let address: InstanceAddress
  var store: String { address.store }
  /// The effect's number, unique in the run.
  let effect: Int
  /// started, sleeping, finished, cancelled or failed.
  let event: String
  /// The seq of the action whose reducer returned the effect.
  let cause: Int
  let operatorName: String
  let cancelID: String?
  /// cancelled: why, and the seq of the action that cancelled it, if one did.
  let cancelledBy: (reason: String, seq: Int?)?
  /// failed: the error.
  let error: String?
  /// sleeping: the virtual time it waits until.
  let until: Int?
  /// Milliseconds since the header's `startTime`.
  let elapsed: Int

  init(_ json: JSONValue, line: Int) throws(RecordingError) {
    guard let store = json["store"]?.stringValue, let effect = json["effect"]?.intValue,
      let event = json["event"]?.stringValue, let cause = json["cause"]?.intValue,
      let operatorName = json["operator"]?.stringValue, let elapsed = json["t"]?.intValue
    else {
      throw RecordingError(
        line: line, "an effect line needs store, effect, event, cause, operator and t")
    }
    self.line = line
    self.address = InstanceAddress(store, try RecordedAction.instance(in: json, line: line))
    self.effect = effect
    self.event = event
    self.cause = cause
    self.operatorName = operatorName
    self.cancelID = json["cancelID"]?.stringValue
    self.cancelledBy = json["by"]?["reason"]?.stringValue.map { ($0, json["by"]?["seq"]?.intValue) }
    self.error = json["error"]?.stringValue
    self.until = json["until"]?.intValue
    self.elapsed = try checkedTime(elapsed, line: line)
  }
}

/// One `answer` line of a recording (``AnswerLog``): what a dependency answered an effect.
/// A replay skips these; `--to-scenario` scripts them.
struct RecordedAnswer {
  /// Line number in the file.
  let line: Int
  /// `http`, `websocket`, or a name a store scripts (`nthPrimes`).
  let dependency: String
  /// The seq of the last action reduced when the effect asked, for answers to a request.
  let after: Int?
  /// The line's other members: what was asked and answered.
  let fields: JSONObject
  /// Milliseconds since the header's `startTime`, when the effect got the answer.
  let elapsed: Int

  init(_ json: JSONValue, line: Int) throws(RecordingError) {
    guard case .object(var fields) = json, let dependency = json["dependency"]?.stringValue,
      let elapsed = json["t"]?.intValue
    else {
      throw RecordingError(line: line, "an answer line needs dependency and t")
    }
    self.line = line
    self.dependency = dependency
    self.after = json["after"]?.intValue
    self.elapsed = try checkedTime(elapsed, line: line)
    for key in ["type", "dependency", "after", "t"] { fields[key] = nil }
    self.fields = fields
  }
}

/// A line's `t`, refused outside ``ActionTime/elapsedRange``: a replay adds it to the header's
/// `startTime`, and a scenario written from the recording subtracts one from another.
private func checkedTime(_ elapsed: Int, line: Int) throws(RecordingError) -> Int {
  guard ActionTime.elapsedRange.contains(elapsed) else {
    throw RecordingError(
      line: line,
      "\"t\" is \(elapsed): it is milliseconds since the start, at most "
        + "\(ActionTime.maximumMilliseconds) either way")
  }
  return elapsed
}

/// A recording read whole from disk.
struct RecordingFile {
  /// The largest recording read: about five million actions.
  static let maximumBytes = 1 << 30

  let header: RecordingHeader
  let actions: [RecordedAction]
  /// Present when the run traced effects; a replay re-reduces the actions and skips them.
  let effects: [RecordedEffect]
  /// Present when the run recorded its dependencies' answers, in the order the effects got them.
  let answers: [RecordedAnswer]
  /// The positions of the answers among the actions: `answers[i]` came before
  /// `actions[answerPositions[i]]` (the count of actions when there is none after it).
  let answerPositions: [Int]
  /// Every action and effect line after the header, as written: what the timeline page embeds. Empty unless
  /// asked for, since the slices keep the whole file in memory beside what was parsed.
  let lines: [ArraySlice<UInt8>]

  init(path: String, keepingLines: Bool = false) throws(RecordingError) {
    let bytes: [UInt8]
    do {
      bytes = try FileIO.readAll(path, limit: Self.maximumBytes)
    } catch {
      throw RecordingError(line: nil, "cannot read \(path): \(error.reason)")
    }
    try self.init(bytes: bytes, name: path, keepingLines: keepingLines)
  }

  /// A recording's bytes; `name` names it in errors.
  init(bytes: [UInt8], name path: String, keepingLines: Bool = false) throws(RecordingError) {
    var header: RecordingHeader?
    var actions: [RecordedAction] = []
    var effects: [RecordedEffect] = []
    var answers: [RecordedAnswer] = []
    var answerPositions: [Int] = []
    var lines: [ArraySlice<UInt8>] = []
    var lineNumber = 0
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      lineNumber += 1
      if line.isEmpty { continue }
      let json: JSONValue
      do {
        json = try line.withUnsafeBytes { try JSONParser.parse($0) }
      } catch {
        throw RecordingError(
          line: lineNumber,
          lineNumber > 1 && bytes.last != UInt8(ascii: "\n")
            ? "the last line is cut short (was the recording interrupted?): \(error)"
            : "not JSON: \(error)")
      }
      if header == nil {
        header = try RecordingHeader(json)
        continue
      } else if json["type"] == "effect" {
        effects.append(try RecordedEffect(json, line: lineNumber))
      } else if json["type"] == "answer" {
        answers.append(try RecordedAnswer(json, line: lineNumber))
        answerPositions.append(actions.count)
        continue
      } else {
        actions.append(try RecordedAction(json, text: line, line: lineNumber))
      }
      if keepingLines { lines.append(line) }
    }
    guard let header else { throw RecordingError(line: nil, "\(path) is empty") }
    self.header = header
    self.actions = actions
    self.effects = effects
    self.answers = answers
    self.answerPositions = answerPositions
    self.lines = lines
  }
}

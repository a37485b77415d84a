import ComposableRuntime
import JSON
@_spi(Hosting) import Protocol

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
  /// Null when the line was read without it (``RecordingReader/keepsPatches``).
  let patch: JSONValue
  /// Milliseconds since the header's `startTime`.
  let elapsed: Int

  /// `json` parsed from `text`, line `line` of the file.
  init(_ json: JSONValue, text: ArraySlice<UInt8>, line: Int, keepingPatch: Bool = true)
    throws(RecordingError)
  {
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
    self.patch = keepingPatch ? object["patch"]! : .null
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

/// One line of a recording after its header.
enum RecordingEntry {
  case action(RecordedAction)
  case effect(RecordedEffect)
  case answer(RecordedAnswer)
  /// A host stopped this instance (of a session that is not durable), `elapsed` milliseconds
  /// after the header's `startTime`: the next action it reduces starts it again from its
  /// initial state.
  case stopped(InstanceAddress, elapsed: Int)

  /// `json` parsed from `text`, line `line` of the file.
  init(_ json: JSONValue, text: ArraySlice<UInt8>, line: Int, keepingPatch: Bool)
    throws(RecordingError)
  {
    switch json["type"] {
    case "effect": self = .effect(try RecordedEffect(json, line: line))
    case "answer": self = .answer(try RecordedAnswer(json, line: line))
    case "stopped":
      guard let store = json["store"]?.stringValue,
        let instance = try RecordedAction.instance(in: json, line: line),
        let elapsed = json["t"]?.intValue
      else { throw RecordingError(line: line, "a stopped line needs store, instance and t") }
      self = .stopped(
        InstanceAddress(store, instance), elapsed: try checkedTime(elapsed, line: line))
    default:
      self = .action(try RecordedAction(json, text: text, line: line, keepingPatch: keepingPatch))
    }
  }
}

/// A recording read one line at a time, from a file or from bytes: a command that handles one
/// line after another holds the line it is at and what it made of the earlier ones, never the
/// file (``FileLines``).
final class RecordingReader {
  let header: RecordingHeader
  /// The size of what is read: the file's when it was opened.
  var byteCount: Int { lines.fileBytes }
  /// The number of the line last read.
  private(set) var lineNumber = 0
  /// Whether actions keep their patches: what only draws the actions leaves them, which are
  /// most of what a recording holds.
  var keepsPatches = true
  private let lines: FileLines

  /// `maximumFileBytes` refuses a larger file before it is read.
  convenience init(path: String, maximumFileBytes: Int = .max) throws(RecordingError) {
    let lines: FileLines
    do {
      lines = try FileLines(path: path, maximumLineBytes: RecordingFile.maximumBytes)
    } catch {
      throw RecordingError(line: nil, "cannot read \(path): \(error.reason)")
    }
    guard lines.fileBytes <= maximumFileBytes else {
      throw RecordingError(
        line: nil,
        "cannot read \(path): it is larger than the limit of \(maximumFileBytes) bytes")
    }
    try self.init(lines, name: path)
  }

  /// A recording's bytes; `name` names it in errors.
  convenience init(bytes: [UInt8], name: String) throws(RecordingError) {
    try self.init(
      FileLines(bytes: bytes, maximumLineBytes: RecordingFile.maximumBytes), name: name)
  }

  private init(_ lines: FileLines, name: String) throws(RecordingError) {
    self.lines = lines
    var header: RecordingHeader?
    while header == nil, let (json, _) = try Self.nextLine(of: lines, counting: &lineNumber) {
      header = try RecordingHeader(json)
    }
    guard let header else { throw RecordingError(line: nil, "\(name) is empty") }
    self.header = header
  }

  /// The next line's entry with its text as written, which is valid until the next call; nil
  /// at the end.
  func next() throws(RecordingError) -> (entry: RecordingEntry, text: ArraySlice<UInt8>)? {
    guard let (json, text) = try Self.nextLine(of: lines, counting: &lineNumber) else {
      return nil
    }
    return (
      try RecordingEntry(json, text: text, line: lineNumber, keepingPatch: keepsPatches), text
    )
  }

  /// The next line that is not empty, parsed.
  private static func nextLine(of lines: FileLines, counting lineNumber: inout Int)
    throws(RecordingError) -> (JSONValue, ArraySlice<UInt8>)?
  {
    while true {
      let read: (line: ArraySlice<UInt8>, ending: FileLines.Ending)?
      do {
        read = try lines.next()
      } catch {
        throw RecordingError(line: lineNumber + 1, error.reason)
      }
      guard let (line, ending) = read else { return nil }
      lineNumber += 1
      if line.isEmpty { continue }
      do {
        return (try line.withUnsafeBytes { try JSONParser.parse($0) }, line)
      } catch {
        throw RecordingError(
          line: lineNumber,
          lineNumber > 1 && ending == .endOfFile
            ? "the last line is cut short (was the recording interrupted?): \(error)"
            : "not JSON: \(error)")
      }
    }
  }
}

/// A recording read whole, for what needs all of it at once (a scenario written from it, the
/// timeline's lanes); a replay reads it line by line (``RecordingReader``).
struct RecordingFile {
  /// The longest line of a recording, and the largest recording read whole: about five million
  /// actions.
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
  /// A host's stop of an instance, and the count of actions before it.
  typealias Stop = (address: InstanceAddress, elapsed: Int, position: Int)
  /// The instances stopped (in a session that was not durable), in order.
  let stops: [Stop]

  /// `keepingPatches: false` reads the actions without their patches (``RecordedAction/patch``
  /// is null).
  init(path: String, keepingPatches: Bool = true) throws(RecordingError) {
    let reader = try RecordingReader(path: path, maximumFileBytes: Self.maximumBytes)
    reader.keepsPatches = keepingPatches
    try self.init(reading: reader)
  }

  /// A recording's bytes; `name` names it in errors.
  init(bytes: [UInt8], name: String) throws(RecordingError) {
    try self.init(reading: RecordingReader(bytes: bytes, name: name))
  }

  /// The rest of what `reader` reads.
  init(reading reader: RecordingReader) throws(RecordingError) {
    var actions: [RecordedAction] = []
    var effects: [RecordedEffect] = []
    var answers: [RecordedAnswer] = []
    var answerPositions: [Int] = []
    var stops: [Stop] = []
    while let (entry, _) = try reader.next() {
      switch entry {
      case .action(let action): actions.append(action)
      case .effect(let effect): effects.append(effect)
      case .answer(let answer):
        answers.append(answer)
        answerPositions.append(actions.count)
      case .stopped(let address, let elapsed):
        stops.append((address, elapsed, actions.count))
      }
    }
    header = reader.header
    self.stops = stops
    self.actions = actions
    self.effects = effects
    self.answers = answers
    self.answerPositions = answerPositions
  }
}

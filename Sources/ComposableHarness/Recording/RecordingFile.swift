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
  let store: String
  let source: String
  let id: JSONValue?
  let action: JSONValue
  let patch: JSONValue
  /// Milliseconds since the header's `startTime`.
  let elapsed: Int

  init(_ json: JSONValue, line: Int) throws(RecordingError) {
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
    self.store = store
    self.source = source
    self.id = object["id"]
    self.action = action
    self.patch = object["patch"]!
    self.elapsed = elapsed
  }
}

/// A recording read whole from disk.
struct RecordingFile {
  /// The largest recording read: about five million actions.
  static let maximumBytes = 1 << 30

  let header: RecordingHeader
  let actions: [RecordedAction]

  init(path: String) throws(RecordingError) {
    let bytes: [UInt8]
    do {
      bytes = try FileIO.readAll(path, limit: Self.maximumBytes)
    } catch {
      throw RecordingError(line: nil, "cannot read \(path): \(error.reason)")
    }
    var header: RecordingHeader?
    var actions: [RecordedAction] = []
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
      } else if json["type"] == "effect" {
        // A recording made with `--trace effects` has them; a replay re-reduces the actions.
        continue
      } else {
        actions.append(try RecordedAction(json, line: lineNumber))
      }
    }
    guard let header else { throw RecordingError(line: nil, "\(path) is empty") }
    self.header = header
    self.actions = actions
  }
}

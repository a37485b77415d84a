import JSON
@_spi(Hosting) import Protocol

/// A durable instance's stored history as a recording (`export`), so that `replay`, `timeline`
/// and `replay --to-scenario` work on what a durable session did as on a `--record` log.
///
/// The stored lines are the very bytes stdout got, so each becomes a recording's line by gaining
/// its `t` alone: nothing is decoded and encoded again, and a replay checks the patches hosts
/// read. A history that starts at a stored snapshot gives that state to the header's
/// `initialStates`, since no recorded action leads to it. What storage does not keep stays as a
/// replay takes it when absent: no arguments, seed 0, no dependencies' answers.
package enum HistoryRecording {
  /// The recording of `store`'s instance whose history this is, made by `binary` over `stores`.
  /// Throws when the history cannot be one: it holds `state` lines (`--emit ticks`), which
  /// carry no actions to replay, or it is damaged.
  package static func bytes(
    of history: StoredHistory, store: String, binary: String, stores: StoreCatalog
  ) throws(RecordingError) -> [UInt8] {
    var initialStates: [String: JSONValue] = [:]
    if let base = history.base {
      // At the depth a recording's reader takes, or the recording would not read back.
      guard let state = try? JSONParser.parse(base), case .object = state else {
        throw RecordingError(
          line: nil, "its base snapshot is not a JSON object a recording can hold")
      }
      initialStates[store] = state
    }
    // A batch's time is as its process read the clock, which nothing keeps within the dates a
    // header may give. Each line's `t` is exact relative to it, since reducers saw those times.
    let startTime = min(
      max(history.batches.first?.time ?? 0, 0), ActionTime.maximumMilliseconds)
    let header = RecordingHeader(
      binary: binary, stores: stores.names, arguments: [], seed: 0, clock: .live,
      startTime: startTime, fingerprints: stores.fingerprints, initialStates: initialStates)
    var bytes = header.json.serialized
    bytes.append(UInt8(ascii: "\n"))
    for batch in history.batches {
      let (elapsed, overflow) = batch.time.subtractingReportingOverflow(startTime)
      guard !overflow, ActionTime.elapsedRange.contains(elapsed) else {
        throw RecordingError(
          line: nil, "batch \(batch.number)'s time, \(batch.time), is not a valid date")
      }
      let t = Array(#","t":\#(elapsed)}"#.utf8)
      var start = batch.lines.startIndex
      while start < batch.lines.endIndex {
        let end = batch.lines[start...].firstIndex(of: UInt8(ascii: "\n")) ?? batch.lines.endIndex
        let line = batch.lines[start..<end]
        if line.starts(with: statePrefix) {
          throw RecordingError(
            line: nil,
            "its history holds state lines, written under --emit ticks, which carry no "
              + "actions: export needs a history made under --emit actions")
        }
        guard line.starts(with: actionPrefix), line.last == UInt8(ascii: "}") else {
          throw RecordingError(
            line: nil, "a stored line of batch \(batch.number) is not an action line")
        }
        bytes.append(contentsOf: line.dropLast())
        bytes.append(contentsOf: t)
        bytes.append(UInt8(ascii: "\n"))
        start = end + 1
      }
    }
    return bytes
  }

  private static let actionPrefix = Array(#"{"type":"action","#.utf8)
  private static let statePrefix = Array(#"{"type":"state","#.utf8)
}

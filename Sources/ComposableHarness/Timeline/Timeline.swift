import ComposableRuntime
import JSON
@_spi(Hosting) import Protocol

/// `timeline FILE`: a recording drawn as a page to open in a browser (`html`) or as swimlanes
/// in plain text (`text`). Effects appear when the run was recorded with `--trace effects`.
package struct Timeline: Sendable {
  package enum Format: String, Sendable, CaseIterable {
    case html, text
  }

  package let file: String
  package let format: Format
  /// Where to write; standard output when nil.
  package let output: String?
  /// The stores to draw (text only), each with every instance it has; every store with a line
  /// in the recording when empty.
  package let stores: [String]
  /// The named instances to draw (text only), by key: of `stores` when given, of any store
  /// otherwise; every instance when empty.
  package let instances: [String]
  /// The text's width in characters: each lane but the last is cut to its share.
  package let width: Int
  package let harness: Harness

  package init(
    file: String, format: Format, output: String?, stores: [String], instances: [String] = [],
    width: Int, harness: Harness
  ) {
    self.file = file
    self.format = format
    self.output = output
    self.stores = stores
    self.instances = instances
    self.width = width
    self.harness = harness
  }

  /// Draws the timeline, printing errors as the command does; returns the exit code: 0, 64
  /// for a store or an instance the recording does not have, 65 for an unreadable recording,
  /// 73 when the output (the file, or standard output) cannot be written.
  package func run() -> Int32 {
    let title = file.split(separator: "/").last.map(String.init) ?? file
    let bytes: [UInt8]
    switch format {
    case .html:
      do {
        // The page is built as the lines are read.
        let reader = try RecordingReader(path: file, maximumFileBytes: RecordingFile.maximumBytes)
        var initialStates: [String: JSONValue] = [:]
        for definition in harness.stores.definitions {
          initialStates[definition.name] = definition.initialStateJSON
        }
        // An exported history's first patch applies to the snapshot it starts at.
        initialStates.merge(reader.header.initialStates) { _, recorded in recorded }
        bytes = try TimelinePage.html(reading: reader, title: title, initialStates: initialStates)
      } catch {
        return failure("\(file): \(error)", code: 65)
      }
    case .text:
      let recording: RecordingFile
      do {
        // The lanes draw actions, not what they changed.
        recording = try RecordingFile(path: file, keepingPatches: false)
      } catch {
        return failure("\(file): \(error)", code: 65)
      }
      if let unknown = stores.first(where: { !recording.header.stores.contains($0) }) {
        return failure(
          "--store \(unknown): the recording's stores are "
            + recording.header.stores.joined(separator: ", "), code: 64)
      }
      let lanes = TextTimeline.lanes(of: recording, stores: stores, instances: instances)
      if let unknown = instances.first(where: { key in
        !lanes.contains { $0.instance?.value == key }
      }) {
        return failure(unknownInstance(unknown, in: recording), code: 64)
      }
      bytes = Array(
        TextTimeline(recording: recording, title: title, lanes: lanes, width: width).render()
          .utf8)
    }
    do {
      try FileIO.writeOutput(bytes, to: output)
    } catch {
      return failure(error.reason, code: 73)
    }
    return 0
  }

  /// Why `key` draws nothing: the keys the recording has, of `stores` when given.
  private func unknownInstance(_ key: String, in recording: RecordingFile) -> String {
    let keys = Set(
      TextTimeline.lanes(of: recording, stores: stores, instances: []).compactMap {
        $0.instance?.value
      }
    ).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    let of = stores.isEmpty ? "" : " of " + stores.joined(separator: ", ")
    return "--instance \(JSONValue.string(key).jsonString): "
      + (keys.isEmpty
        ? "the recording has no named instances\(of)"
        : "the recording's instances\(of) are " + Self.list(keys))
  }

  /// Keys quoted as lanes name them, the first few of many.
  private static func list(_ keys: [String]) -> String {
    let shown = keys.prefix(10).map { JSONValue.string($0).jsonString }.joined(separator: ", ")
    return keys.count > 10 ? shown + ", … (\(keys.count) in all)" : shown
  }

  private func failure(_ message: String, code: Int32) -> Int32 {
    StandardStreams.error("\(harness.name) timeline: \(message)")
    return code
  }
}

import Logging

extension RecordingHeader {
  /// The most a recording keeps of one file of the data folder.
  package static let maximumFileBytes = 1 << 20

  /// The files of the data folder at `path` (not its folders, hidden files or a save's
  /// temporary files), by name: what a run's effects may read, so that a scenario made from
  /// the recording starts from the same files. A file that cannot be kept (larger than
  /// ``maximumFileBytes``, not UTF-8 text, unreadable) is left out, with a warning in `log`.
  /// A folder that does not exist yet holds nothing.
  static func files(in path: String, log: Logger) -> [String: String] {
    guard let entries = try? FileIO.entries(of: path) else { return [:] }
    var files: [String: String] = [:]
    for entry in entries
    where !entry.isDirectory && !entry.name.hasPrefix(".") && !entry.name.contains(".tmp-") {
      do {
        let bytes = try FileIO.readAll("\(path)/\(entry.name)", limit: maximumFileBytes)
        guard let text = String(validating: bytes, as: UTF8.self) else {
          log.warning("the recording leaves out \(entry.name): it is not UTF-8 text")
          continue
        }
        files[entry.name] = text
      } catch {
        log.warning("the recording leaves out \(entry.name): \(error.reason)")
      }
    }
    return files
  }
}

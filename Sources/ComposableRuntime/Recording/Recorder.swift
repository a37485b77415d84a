@_spi(Hosting) import JSON
import Protocol

#if canImport(Glibc)
  import Glibc
#endif

/// Writes `--record FILE`: a header line, then every reduced action's line as printed, with
/// `t` (milliseconds since start) added, and with `--trace effects` every `effect` line as
/// printed (which has its `t`).
///
/// The bytes are the ones stdout gets, so recording costs a copy and a buffered write per
/// action; the file is flushed once per loop iteration and at exit. See `RecordingFile` for
/// the format.
package final class Recorder {
  private let file: UnsafeMutablePointer<FILE>
  private let path: String
  /// `,"t":N}` and the newline, reused for every action.
  private var tail: [UInt8] = []
  /// Why writing stopped (a full disk, say); nil while every write succeeded. The run goes on
  /// without the recording.
  package private(set) var failure: String?

  /// Creates or empties the file at `path` and writes `header` as its first line.
  package init(path: String, header: RecordingHeader) throws(RecorderError) {
    guard let file = fopen(path, "w") else {
      throw RecorderError(message: "cannot write \(path): \(String(cString: strerror(errno)))")
    }
    self.file = file
    self.path = path
    setvbuf(file, nil, _IOFBF, 256 * 1024)
    var bytes = header.json.serialized
    bytes.append(UInt8(ascii: "\n"))
    write(bytes[...])
  }

  /// `action` is one `action` line, newline included.
  package func record(_ action: ArraySlice<UInt8>, elapsed: Int) {
    guard failure == nil, action.count > 2 else { return }
    tail.removeAll(keepingCapacity: true)
    Self.appendTime(elapsed, to: &tail)
    write(action.dropLast(2))
    write(tail[...])
  }

  /// How a recording's action line ends where the printed one has its `}` and newline: `t`,
  /// then those. A recording kept in memory (a scenario's own, to replay it) is written so too.
  package static func appendTime(_ elapsed: Int, to bytes: inout [UInt8]) {
    bytes.append(contentsOf: #","t":"#.utf8)
    JSONWriter.writeInt(elapsed, into: &bytes)
    bytes.append(contentsOf: "}\n".utf8)
  }

  /// One line of `object`'s members and then `t`.
  package func record(_ object: JSONObject, elapsed: Int) {
    var line = object
    line["t"] = .int(elapsed)
    var bytes = JSONValue.object(line).serialized
    bytes.append(UInt8(ascii: "\n"))
    write(bytes[...])
  }

  /// `line` is one line that carries its own `t`, newline included.
  package func record(line: ArraySlice<UInt8>) {
    write(line)
  }

  /// Writes out what is buffered.
  package func flush() {
    guard failure == nil else { return }
    if fflush(file) != 0 { fail() }
  }

  /// Flushes and closes; returns the error that stopped the recording, if one did.
  package func close() -> String? {
    flush()
    if fclose(file) != 0 && failure == nil { fail() }
    return failure
  }

  private func write(_ bytes: ArraySlice<UInt8>) {
    guard failure == nil else { return }
    let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    if written != bytes.count { fail() }
  }

  private func fail() {
    failure = "writing \(path) failed: \(String(cString: strerror(errno)))"
  }
}

/// Why a recording could not be started.
package struct RecorderError: Error, CustomStringConvertible {
  /// What failed, naming the file.
  package let message: String
  package var description: String { message }
}

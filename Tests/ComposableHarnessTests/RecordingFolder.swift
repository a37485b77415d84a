import ComposableRuntime
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Writes `lines` as `recording.jsonl` in a fresh folder, runs `body` with the folder and the
/// file's path, and removes the folder.
func withRecording<T>(_ lines: [String], _ body: (_ folder: String, _ path: String) throws -> T)
  throws -> T
{
  var template = Array("/tmp/harness-tests-XXXXXX".utf8CString)
  let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
  let folder = String(cString: try XCTUnwrap(made))
  defer { _ = system("rm -rf '\(folder)'") }
  let path = "\(folder)/recording.jsonl"
  try FileIO.writeAtomically(Array((lines.joined(separator: "\n") + "\n").utf8), to: path)
  return try body(folder, path)
}

import ComposableRuntime

#if canImport(Glibc)
  import Glibc
#endif

/// A fresh folder under $TMPDIR (or /tmp): a scenario's data folder, removed afterwards.
struct TemporaryDirectory {
  let path: String

  init() throws(FileIO.Failure) {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(base)/composable-actor-scenario-XXXXXX".utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
      throw FileIO.Failure(code: errno)
    }
    path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  /// Copies the files and folders in `source` into this folder.
  func copyContents(of source: String) throws(FileIO.Failure) {
    try Self.copy(from: source, to: path)
  }

  /// Removes the folder and everything in it.
  func remove() {
    Self.remove(path)
  }

  private static func copy(from source: String, to destination: String) throws(FileIO.Failure) {
    for (name, isDirectory) in try FileIO.entries(of: source) {
      let (from, to) = ("\(source)/\(name)", "\(destination)/\(name)")
      if isDirectory {
        guard mkdir(to, 0o755) == 0 else { throw FileIO.Failure(code: errno) }
        try copy(from: from, to: to)
      } else {
        try FileIO.writeAtomically(FileIO.readAll(from, limit: SavedFile.maximumBytes), to: to)
      }
    }
  }

  private static func remove(_ path: String) {
    for (name, isDirectory) in (try? FileIO.entries(of: path)) ?? [] {
      if isDirectory { remove("\(path)/\(name)") } else { unlink("\(path)/\(name)") }
    }
    rmdir(path)
  }
}

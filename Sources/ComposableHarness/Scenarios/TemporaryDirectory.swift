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
    for (name, isDirectory) in try entries(of: source) {
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
    for (name, isDirectory) in (try? entries(of: path)) ?? [] {
      if isDirectory { remove("\(path)/\(name)") } else { unlink("\(path)/\(name)") }
    }
    rmdir(path)
  }

  /// The names in a folder but `.` and `..`, and whether each is a folder (not following links).
  private static func entries(of path: String) throws(FileIO.Failure) -> [(String, Bool)] {
    guard let directory = opendir(path) else { throw FileIO.Failure(code: errno) }
    defer { closedir(directory) }
    var entries: [(String, Bool)] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
      }
      guard name != "." && name != ".." else { continue }
      var status = stat()
      let isDirectory = lstat("\(path)/\(name)", &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
      entries.append((name, isDirectory))
    }
    return entries
  }
}

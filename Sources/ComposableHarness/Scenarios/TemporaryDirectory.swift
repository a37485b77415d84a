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

  /// Removes the folder and the files in it (stores write files only, no subfolders).
  func remove() {
    if let directory = opendir(path) {
      while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        if name != "." && name != ".." { unlink("\(path)/\(name)") }
      }
      closedir(directory)
    }
    rmdir(path)
  }
}

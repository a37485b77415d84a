#if canImport(Glibc)
  import Glibc
#endif

/// A folder of a test's own under /tmp, made empty and removed by the test.
struct TemporaryFolder {
  let path: String

  init(prefix: String) {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
  }

  func remove() {
    _ = system("rm -rf '\(path)'")
  }
}

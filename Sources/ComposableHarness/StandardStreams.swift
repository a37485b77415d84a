#if canImport(Glibc)
  import Glibc
#endif

/// Whole writes to stdout and stderr for the commands that print a file's worth at once.
enum StandardStreams {
  /// Writes all of `bytes` unless the descriptor fails (a closed pipe: nobody reads it).
  static func write(_ bytes: [UInt8], to descriptor: Int32 = STDOUT_FILENO) {
    var rest = bytes[...]
    while !rest.isEmpty {
      let written = rest.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      rest = rest.dropFirst(written)
    }
  }

  static func error(_ message: String) {
    write(Array((message + "\n").utf8), to: STDERR_FILENO)
  }
}

import ComposableRuntime

#if canImport(Glibc)
  import Glibc
#endif

/// The commands' messages on stderr.
enum StandardStreams {
  /// Nothing is left to tell when stderr itself fails.
  static func error(_ message: String) {
    try? FileIO.writeAll(Array((message + "\n").utf8), to: STDERR_FILENO)
  }
}

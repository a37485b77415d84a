#if canImport(Glibc)
  import Glibc
#endif

/// Where stores keep files when `--data-dir` is not given: a folder named after the binary in
/// the XDG base directory specification's data home.
package enum DataDirectory {
  /// `$XDG_DATA_HOME/<binary>`, or `~/.local/share/<binary>` when that is not set.
  package static func defaultPath(for binary: String) -> String {
    if let dataHome = environment("XDG_DATA_HOME"), dataHome.hasPrefix("/") {
      return "\(dataHome)/\(binary)"
    }
    let home = environment("HOME") ?? "."
    return "\(home)/.local/share/\(binary)"
  }

  private static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
  }
}

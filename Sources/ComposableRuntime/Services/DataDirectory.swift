#if canImport(Glibc)
  import Glibc
#endif

/// Where favourites and other saved data go when `--data-dir` is not given: the XDG base
/// directory specification's data home.
public enum DataDirectory {
  public static func defaultPath() -> String {
    if let dataHome = environment("XDG_DATA_HOME"), dataHome.hasPrefix("/") {
      return "\(dataHome)/composable-actor"
    }
    let home = environment("HOME") ?? "."
    return "\(home)/.local/share/composable-actor"
  }

  private static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
  }
}

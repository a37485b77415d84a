#if canImport(Glibc)
  import Glibc
#endif

/// The real date, for activity-feed timestamps.
public enum WallClock {
  /// Milliseconds since the Unix epoch.
  public static func nowMilliseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
  }
}

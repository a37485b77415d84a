import ComposableCore

/// The wall-clock time reducers see (`now`, in milliseconds since the Unix epoch), and that a
/// recording stores with each action, so that a replay can give every reducer the same time.
///
/// Live, it is read once per loop iteration: every action reduced in one iteration shares one
/// time, and the recording's time is exactly the one the reducer used. Under the virtual clock
/// it is the virtual time since the Unix epoch (time starts at 0, or at a scenario's `startTime`). In a replay it is set from
/// the log before each action. Loop thread only.
package final class ActionTime: @unchecked Sendable {
  private enum Source {
    case wall
    case virtual(VirtualClock)
    case replayed
  }

  /// The farthest from the Unix epoch a time that a recording or a scenario gives may be, in
  /// milliseconds: JavaScript's `Date` range (the year 275760), which host programs read times
  /// into. Within it, sums and differences of such times cannot overflow, even in microseconds.
  package static let maximumMilliseconds = 8_640_000_000_000_000
  /// The `t` (milliseconds since the start) a recording or a scenario may give a line: a live
  /// clock stepped back makes it negative.
  package static let elapsedRange = -maximumMilliseconds...maximumMilliseconds

  private let source: Source
  private var current: Int?
  /// When the process started, in milliseconds since the Unix epoch.
  package let start: Int

  private init(source: Source, start: Int) {
    self.source = source
    self.start = start
  }

  /// The wall clock's milliseconds, as `run` gives them.
  package static func wall() -> ActionTime {
    ActionTime(source: .wall, start: WallClock.nowMilliseconds())
  }

  /// `start` is what reducers see at virtual time 0: the Unix epoch unless a scenario says.
  package static func virtual(_ clock: VirtualClock, start: Int = 0) -> ActionTime {
    ActionTime(source: .virtual(clock), start: start)
  }

  /// The times a replay sets from the recording's lines, from `start`.
  package static func replayed(start: Int) -> ActionTime {
    ActionTime(source: .replayed, start: start)
  }

  /// The milliseconds since the Unix epoch reducers see now.
  package func now() -> Int {
    switch source {
    case .virtual(let clock):
      // A scenario or a host may advance the virtual clock past `Int`'s range.
      return start.addingSaturating(clock.elapsedMilliseconds)
    case .wall:
      if let current { return current }
      let now = WallClock.nowMilliseconds()
      current = now
      return now
    case .replayed:
      return current ?? start
    }
  }

  /// Milliseconds since start.
  package var elapsed: Int { now() - start }

  /// Live: the next read takes a new time. Called at the end of each loop iteration.
  package func endTick() {
    if case .wall = source { current = nil }
  }

  /// Replay: the time of the next action, in milliseconds since start (within
  /// ``elapsedRange``, as recordings and scenarios are checked to be).
  package func replay(elapsed: Int) {
    current = start + elapsed
  }
}

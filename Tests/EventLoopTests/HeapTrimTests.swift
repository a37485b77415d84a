import EventLoop
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Resident bytes, from /proc/self/statm.
private func residentBytes() -> Int {
  let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
  let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
  return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

final class HeapTrimTests: XCTestCase {
  /// The timer is unreferenced: a loop with nothing else to do ends at once, a trim due or not.
  func testATrimDueDoesNotKeepTheLoopRunning() throws {
    let started = ContinuousClock.now
    var trim: HeapTrim?
    runLoop { loop in
      trim = try! HeapTrim(loop: loop)
      trim?.noteWork()
    }
    withExtendedLifetime(trim) {}
    XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(900))
  }

  /// 64 MiB freed below a block still in use stays resident, until a second passed without
  /// work.
  func testWhatWorkFreedGoesBackAfterAQuietSecond() throws {
    let blockBytes = 1024
    var blocks = (0..<65_536).map { _ in
      let block = malloc(blockBytes)!
      memset(block, 1, blockBytes)
      return block
    }
    let kept = blocks.removeLast()
    for block in blocks { free(block) }
    blocks = []
    let freed = residentBytes()
    let after = Locked(0)
    var trim: HeapTrim?
    runLoop { loop in
      let heapTrim = try! HeapTrim(loop: loop)
      trim = heapTrim
      heapTrim.noteWork()
      let clock = loop.clock
      Task(executorPreference: loop.executor) {
        // Twice the quiet second: the timer may find the work noted and wait one more.
        try? await clock.sleep(for: .milliseconds(2_500))
        after.withValue { $0 = residentBytes() }
      }
    }
    withExtendedLifetime(trim) {}
    free(kept)
    XCTAssertLessThan(
      after.current, freed - 48 << 20, "\(freed >> 20) MiB, then \(after.current >> 20) MiB")
  }
}

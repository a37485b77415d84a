import EventLoop
import XCTest

final class LoopQuiescenceTests: XCTestCase {
  func testWaitsForThreadPoolWorkAndTheJobsItResumes() throws {
    let events = Locked<[String]>([])
    try runLoop { loop in
      let quiescence = try LoopQuiescence(loop: loop)
      let pool = loop.threadPool
      Task(executorPreference: loop.executor) {
        let value = try? await pool.run { _ in
          usleep(50_000)
          return 42
        }
        // Several hops after the pool's answer: all of them come before quiescence.
        for _ in 0..<10 { await Task.yield() }
        events.withValue { $0.append("work \(value ?? 0)") }
      }
      quiescence.whenQuiescent {
        events.withValue { $0.append("quiescent") }
        quiescence.close()
      }
    }
    XCTAssertEqual(events.current, ["work 42", "quiescent"])
  }

  func testAnIdleLoopIsQuiescentAtOnceWhereverAsked() throws {
    let count = Locked(0)
    try runLoop { loop in
      let quiescence = try LoopQuiescence(loop: loop)
      quiescence.whenQuiescent {
        count.withValue { $0 += 1 }
        // Asked again from inside the check: answered in a later iteration, not lost.
        quiescence.whenQuiescent {
          count.withValue { $0 += 1 }
          quiescence.close()
        }
      }
    }
    XCTAssertEqual(count.current, 2)
  }
}

import EventLoop
import Glibc
import XCTest

private struct WorkFailed: Error, Equatable {
  let code: Int
}

/// Runs pool work and records how it ended, as text, for assertions after the loop.
private func runAndReport<T: Sendable>(
  _ pool: ThreadPool, outcome: Locked<String?>,
  _ work: @escaping @Sendable (CancellationFlag) throws -> T
) async {
  do {
    let value = try await pool.run(work)
    outcome.withValue { $0 = "value \(value)" }
  } catch {
    outcome.withValue { $0 = "\(error)" }
  }
}

final class ThreadPoolTests: XCTestCase {
  func testResultComesBackOnTheLoopThread() {
    let outcome = Locked<String?>(nil)
    let workThreadWasLoop = Locked<Bool?>(nil)
    let resumedOnLoop = Locked<Bool?>(nil)
    runLoop { loop in
      let pool = loop.threadPool
      Task(executorPreference: loop.executor) {
        await runAndReport(pool, outcome: outcome) { _ in
          workThreadWasLoop.withValue { $0 = loop.isOnLoopThread }
          return (1...10).reduce(0, +)
        }
        resumedOnLoop.withValue { $0 = loop.isOnLoopThread }
      }
    }
    XCTAssertEqual(outcome.current, "value 55")
    XCTAssertEqual(workThreadWasLoop.current, false)
    XCTAssertEqual(resumedOnLoop.current, true)
  }

  func testThrownErrorIsRethrown() {
    let outcome = Locked<String?>(nil)
    runLoop { loop in
      let pool = loop.threadPool
      Task(executorPreference: loop.executor) {
        await runAndReport(pool, outcome: outcome) { _ -> Int in throw WorkFailed(code: 7) }
      }
    }
    XCTAssertEqual(outcome.current, "WorkFailed(code: 7)")
  }

  /// A scripted session's slow work: the hook runs before each piece of work, and what it
  /// throws is the work's error, the work not run.
  func testAHookRunsBeforeEachPieceOfWorkAndItsErrorIsTheWorks() {
    let outcome = Locked<String?>(nil)
    let events = Locked<[String]>([])
    runLoop { loop in
      let pool = loop.threadPool.waiting {
        let count = events.withValue { events in
          events.append("hook")
          return events.count
        }
        if count > 2 { throw WorkFailed(code: 9) }
      }
      Task(executorPreference: loop.executor) {
        await runAndReport(pool, outcome: outcome) { _ in events.withValue { $0.append("work") } }
        await runAndReport(pool, outcome: outcome) { _ in events.withValue { $0.append("work") } }
      }
    }
    XCTAssertEqual(events.current, ["hook", "work", "hook"])
    XCTAssertEqual(outcome.current, "WorkFailed(code: 9)")
  }

  func testCancellingQueuedWorkRemovesItWithoutRunningIt() {
    // Occupy every pool thread so that the next job waits in libuv's queue.
    let poolSize = getenv("UV_THREADPOOL_SIZE").flatMap { Int(String(cString: $0)) } ?? 4
    let started = Locked(0)
    let release = Locked(false)
    let queuedRan = Locked(false)
    let outcome = Locked<String?>(nil)
    runLoop { loop in
      let pool = loop.threadPool
      for _ in 0..<poolSize {
        Task(executorPreference: loop.executor) {
          _ = try? await pool.run { _ in
            started.withValue { $0 += 1 }
            while !release.current { usleep(1_000) }
          }
        }
      }
      let queued = Task(executorPreference: loop.executor) {
        await runAndReport(pool, outcome: outcome) { _ in
          queuedRan.withValue { $0 = true }
        }
      }
      Task(executorPreference: loop.executor) {
        while started.current < poolSize {
          try? await loop.clock.sleep(for: .milliseconds(1))
        }
        queued.cancel()
        await queued.value
        release.withValue { $0 = true }
      }
    }
    XCTAssertEqual(outcome.current, "CancellationError()")
    XCTAssertFalse(queuedRan.current)
  }

  func testCancellingRunningWorkSetsItsFlag() {
    let outcome = Locked<String?>(nil)
    let started = Locked(false)
    runLoop { loop in
      let pool = loop.threadPool
      let running = Task(executorPreference: loop.executor) {
        await runAndReport(pool, outcome: outcome) { flag -> Int in
          started.withValue { $0 = true }
          while !flag.isCancelled { usleep(1_000) }
          try flag.checkCancellation()
          return 0
        }
      }
      Task(executorPreference: loop.executor) {
        while !started.current {
          try? await loop.clock.sleep(for: .milliseconds(1))
        }
        running.cancel()
      }
    }
    XCTAssertEqual(outcome.current, "CancellationError()")
  }

  func testWorkThatIgnoresTheFlagDeliversItsResult() {
    let outcome = Locked<String?>(nil)
    runLoop { loop in
      let pool = loop.threadPool
      let running = Task(executorPreference: loop.executor) {
        await runAndReport(pool, outcome: outcome) { _ in
          usleep(20_000)
          return 42
        }
      }
      Task(executorPreference: loop.executor) {
        try? await loop.clock.sleep(for: .milliseconds(5))
        running.cancel()
      }
    }
    XCTAssertEqual(outcome.current, "value 42")
  }
}

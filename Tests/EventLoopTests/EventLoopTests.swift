import EventLoop
import Glibc
import XCTest

final class EventLoopTests: XCTestCase {
  func testShutdownClosesEverythingStillOpen() throws {
    let loop = try EventLoop()
    let input = TestPipe()
    let output = TestPipe()
    let reader = try StdinLineReader(loop: loop, fd: input.readEnd)
    reader.start()
    let writer = try StdoutWriter(loop: loop, fd: output.writeEnd)
    writer.append("never flushed\n")
    _ = try SignalWatcher(loop: loop, signals: [SIGUSR2]) { _ in }
    let sleepOutcome = Locked<String?>(nil)
    Task(executorPreference: loop.executor) {
      do {
        try await loop.clock.sleep(for: .seconds(60))
        sleepOutcome.withValue { $0 = "slept" }
      } catch {
        sleepOutcome.withValue { $0 = "\(error)" }
      }
    }
    Task(executorPreference: loop.executor) {
      try? await loop.clock.sleep(for: .milliseconds(5))
      loop.stop()
    }
    loop.run()
    XCTAssertNil(sleepOutcome.current)
    // uv_loop_close fails with EBUSY if anything is left open; shutdown reports that as a throw.
    XCTAssertNoThrow(try loop.shutdown())
    XCTAssertEqual(sleepOutcome.current, "CancellationError()")
  }

  func testSleepsAfterShutdownBeganAreRefused() throws {
    let loop = try EventLoop()
    let outcomes = Locked<[String]>([])
    Task(executorPreference: loop.executor) {
      do {
        try await loop.clock.sleep(for: .seconds(60))
      } catch {
        outcomes.append("\(error)")
      }
      // Runs while shutdown drains the executor: must not keep the loop alive again.
      do {
        try await loop.clock.sleep(for: .seconds(60))
      } catch {
        outcomes.append("\(error)")
      }
    }
    loop.execute { loop.stop() }
    loop.run()
    XCTAssertNoThrow(try loop.shutdown())
    XCTAssertEqual(outcomes.current, ["CancellationError()", "CancellationError()"])
  }

  func testExecuteFromAnotherThreadWakesABlockedLoop() {
    let ranOnLoop = Locked<Bool?>(nil)
    runLoop { loop in
      let alive = keepAlive(loop)
      TestThread.detach {
        pause(milliseconds: 10)
        loop.execute {
          ranOnLoop.withValue { $0 = loop.isOnLoopThread }
          alive.cancel()
        }
      }
    }
    XCTAssertEqual(ranOnLoop.current, true)
  }

  func testStopFromAnotherThread() throws {
    let loop = try EventLoop()
    let alive = keepAlive(loop)
    TestThread.detach {
      pause(milliseconds: 10)
      loop.stop()
    }
    loop.run()
    alive.cancel()
    XCTAssertNoThrow(try loop.shutdown())
  }
}

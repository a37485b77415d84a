import EventLoop
import Glibc
import XCTest

/// An actor isolated to the loop, as the host's store actor is.
private actor LoopBound {
  let loop: EventLoop
  private(set) var counter = 0

  init(loop: EventLoop) {
    self.loop = loop
  }

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    loop.executor.asUnownedSerialExecutor()
  }

  func increment() -> Bool {
    counter += 1
    return loop.isOnLoopThread
  }
}

/// Suspends until a plain pthread resumes the continuation, while the loop waits in epoll.
private func resumedFromAnotherThread() async {
  await withCheckedContinuation { continuation in
    TestThread.detach {
      pause(milliseconds: 2)
      continuation.resume()
    }
  }
}

/// Effect-like work: checks where it runs before and after awaiting foreign threads.
private func nonisolatedWork(loop: EventLoop, checks: Locked<[Bool]>) async {
  checks.append(loop.isOnLoopThread)
  for _ in 0..<3 {
    await resumedFromAnotherThread()
    checks.append(loop.isOnLoopThread)
  }
}

private func actorWork(actor: LoopBound, loop: EventLoop, checks: Locked<[Bool]>) async {
  for _ in 0..<3 {
    checks.append(await actor.increment())
    await resumedFromAnotherThread()
    checks.append(loop.isOnLoopThread)
  }
}

final class LoopExecutorTests: XCTestCase {
  func testTaskWithExecutorPreferenceRunsOnLoopThread() {
    let checks = Locked<[Bool]>([])
    runLoop { loop in
      let alive = keepAlive(loop)
      Task(executorPreference: loop.executor) {
        await nonisolatedWork(loop: loop, checks: checks)
        alive.cancel()
      }
    }
    XCTAssertEqual(checks.current, [true, true, true, true])
  }

  func testActorOnLoopExecutorRunsOnLoopThread() {
    let checks = Locked<[Bool]>([])
    runLoop { loop in
      let actor = LoopBound(loop: loop)
      let alive = keepAlive(loop)
      Task(executorPreference: loop.executor) {
        await actorWork(actor: actor, loop: loop, checks: checks)
        // Without a preference the caller runs on the global pool; only actor code is on the loop.
        await Task.detached {
          for _ in 0..<3 { checks.append(await actor.increment()) }
        }.value
        alive.cancel()
      }
    }
    XCTAssertEqual(checks.current.count, 9)
    XCTAssertTrue(checks.current.allSatisfy { $0 })
  }

  func testAssumeIsolatedWorksInRawLoopCallbacks() {
    let counter = Locked(0)
    runLoop { loop in
      let actor = LoopBound(loop: loop)
      loop.execute {
        let value = actor.assumeIsolated { actor in
          _ = actor.increment()
          return actor.counter
        }
        counter.withValue { $0 = value }
      }
    }
    XCTAssertEqual(counter.current, 1)
  }

  func testExecuteFromOtherThreadsRunsEverythingInOrderOnLoopThread() {
    let seen = Locked<[Int]>([])
    let offLoop = Locked(0)
    runLoop { loop in
      // Something must keep the loop alive while the other thread submits.
      Task(executorPreference: loop.executor) {
        try? await loop.clock.sleep(for: .milliseconds(50))
      }
      let thread = TestThread {
        for index in 0..<25_000 {
          loop.execute {
            if !loop.isOnLoopThread { offLoop.withValue { $0 += 1 } }
            seen.append(index)
          }
        }
      }
      thread.join()
    }
    XCTAssertEqual(offLoop.current, 0)
    XCTAssertEqual(seen.current, Array(0..<25_000))
  }

  func testRunReturnsWhenIdleEvenThoughExecutorHandleIsOpen() {
    let ran = Locked(false)
    runLoop { loop in
      loop.execute { ran.withValue { $0 = true } }
    }
    XCTAssertTrue(ran.current)
  }

  func testStopEndsRunWithWorkStillPending() throws {
    let loop = try EventLoop()
    let result = Locked<String?>(nil)
    let task = Task(executorPreference: loop.executor) {
      do {
        try await loop.clock.sleep(for: .seconds(60))
        result.withValue { $0 = "slept" }
      } catch {
        result.withValue { $0 = "\(type(of: error))" }
      }
    }
    loop.execute { loop.stop() }
    loop.run()
    XCTAssertNil(result.current)
    // Shutdown closes the pending timer: the sleep ends with CancellationError.
    XCTAssertNoThrow(try loop.shutdown())
    XCTAssertEqual(result.current, "CancellationError")
    _ = task
  }

  func testLongDrainsYieldToIO() {
    // Jobs that keep re-enqueueing themselves must not starve timers.
    let timerFired = Locked(false)
    let hopsBeforeTimer = Locked(0)
    runLoop { loop in
      Task(executorPreference: loop.executor) {
        try? await loop.clock.sleep(for: .milliseconds(20))
        timerFired.withValue { $0 = true }
      }
      @Sendable func spin() {
        if timerFired.current { return }
        hopsBeforeTimer.withValue { $0 += 1 }
        loop.execute(spin)
      }
      loop.execute(spin)
    }
    XCTAssertTrue(timerFired.current)
    XCTAssertGreaterThan(hopsBeforeTimer.current, 0)
  }

  func testAHugeBatchOfJobsLetsIOInBetween() throws {
    let pipe = TestPipe()
    pipe.write("ready\n")
    let lineArrived = Locked(false)
    let bodiesAfterLine = Locked(0)
    try runLoop { loop in
      let reader = try StdinLineReader(loop: loop, fd: pipe.readEnd)
      reader.onLine = { _, _ in
        lineArrived.withValue { $0 = true }
        reader.close()
      }
      reader.start()
      for _ in 0..<50_000 {
        loop.execute {
          if lineArrived.current { bodiesAfterLine.withValue { $0 += 1 } }
        }
      }
    }
    XCTAssertTrue(lineArrived.current)
    XCTAssertGreaterThan(bodiesAfterLine.current, 0)
  }
}

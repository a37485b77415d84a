import EventLoop
import Glibc
import XCTest

/// What `runProcess` gave: the result, or the error's description.
private func runChild(
  _ loop: EventLoop, _ program: String, _ arguments: [String], into outcome: Locked<String>
) async {
  do {
    let result = try await loop.runProcess(program, arguments: arguments)
    outcome.withValue {
      $0 = "\(result.termination) \(String(decoding: result.output, as: UTF8.self))"
    }
  } catch {
    outcome.withValue { $0 = "\(type(of: error)): \(error)" }
  }
}

final class LoopProcessTests: XCTestCase {
  /// What `runProcess` gives on a loop of its own.
  private func outcome(_ program: String, _ arguments: [String]) -> String {
    let outcome = Locked("")
    runLoop { loop in
      Task(executorPreference: loop.executor) {
        await runChild(loop, program, arguments, into: outcome)
      }
    }
    return outcome.current
  }

  func testOutputAndExitStatus() {
    XCTAssertEqual(outcome("/bin/sh", ["-c", "echo hi; exit 3"]), "exited(3) hi\n")
  }

  func testSignalThatEndedTheChild() {
    XCTAssertEqual(outcome("/bin/sh", ["-c", "printf partial; kill -9 $$"]), "signaled(9) partial")
  }

  /// Several reads' worth, and a name looked up in PATH.
  func testOutputLongerThanAPipeHoldsArrivesWhole() {
    XCTAssertEqual(
      outcome("head", ["-c", "1000000", "/dev/zero"]),
      "exited(0) " + String(repeating: "\0", count: 1_000_000))
  }

  func testAMissingProgramIsAnErrorNamingIt() {
    XCTAssertEqual(
      outcome("/no/such/program", []),
      "LoopError: uv_spawn /no/such/program: ENOENT (no such file or directory)")
  }

  /// The child is killed, or the loop would wait the half minute for it.
  func testCancellationKillsTheChild() {
    let outcome = Locked("")
    let start = ContinuousClock.now
    runLoop { loop in
      let running = Task(executorPreference: loop.executor) {
        await runChild(loop, "sleep", ["30"], into: outcome)
      }
      Task(executorPreference: loop.executor) {
        try? await loop.clock.sleep(for: .milliseconds(50))
        running.cancel()
      }
    }
    XCTAssertEqual(outcome.current, "CancellationError: CancellationError()")
    XCTAssertLessThan(ContinuousClock.now - start, .seconds(20))
  }

  func testShutdownEndsAChildStillRunning() throws {
    let outcome = Locked("")
    let loop = try EventLoop()
    Task(executorPreference: loop.executor) {
      await runChild(loop, "sleep", ["30"], into: outcome)
    }
    Task(executorPreference: loop.executor) {
      try? await loop.clock.sleep(for: .milliseconds(50))
      loop.stop()
    }
    loop.run()
    XCTAssertNoThrow(try loop.shutdown())
    XCTAssertEqual(outcome.current, "CancellationError: CancellationError()")
  }
}

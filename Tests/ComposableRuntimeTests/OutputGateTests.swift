import ComposableRuntime
import ComposableTestSupport
import XCTest

final class OutputGateTests: XCTestCase {
  func testAnOpenGateLetsThroughAtOnce() async {
    let gate = OutputGate()
    await gate.waitUntilOpen()
    gate.setOpen(false)
    gate.setOpen(true)
    await gate.waitUntilOpen()
  }

  func testAClosedGateHoldsEveryWaiterUntilItOpens() async {
    let gate = OutputGate()
    gate.setOpen(false)
    let passed = LockedBox(0)
    let waiters = (0..<3).map { _ in
      Task {
        await gate.waitUntilOpen()
        passed.withValue { $0 += 1 }
      }
    }
    try? await Task.sleep(for: .milliseconds(50))
    XCTAssertEqual(passed.value, 0)
    gate.setOpen(false)
    try? await Task.sleep(for: .milliseconds(20))
    XCTAssertEqual(passed.value, 0)
    gate.setOpen(true)
    for waiter in waiters { await waiter.value }
    XCTAssertEqual(passed.value, 3)
  }

  func testCancellingAWaiterReleasesOnlyIt() async {
    let gate = OutputGate()
    gate.setOpen(false)
    let cancelled = Task { await gate.waitUntilOpen() }
    let passed = LockedBox(0)
    let other = Task {
      await gate.waitUntilOpen()
      passed.withValue { $0 += 1 }
    }
    try? await Task.sleep(for: .milliseconds(20))
    cancelled.cancel()
    await cancelled.value
    XCTAssertEqual(passed.value, 0)
    gate.setOpen(true)
    await other.value
    XCTAssertEqual(passed.value, 1)
  }

  func testAWaiterCancelledBeforeItWaitsDoesNotWait() async {
    let gate = OutputGate()
    gate.setOpen(false)
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      await gate.waitUntilOpen()
    }
    await task.value
  }
}

import EventLoop
import Glibc
import XCTest

final class SignalWatcherTests: XCTestCase {
  func testDeliversSignalsOnTheLoopThread() throws {
    let received = Locked<[Int32]>([])
    let onLoop = Locked<[Bool]>([])
    try runLoop { loop in
      let alive = keepAlive(loop)
      let watcher = try SignalWatcher(loop: loop) { signal in
        received.append(signal)
        onLoop.append(loop.isOnLoopThread)
        if received.current.count == 2 { alive.cancel() }
      }
      Task(executorPreference: loop.executor) {
        raise(SIGTERM)
        try? await loop.clock.sleep(for: .milliseconds(5))
        raise(SIGINT)
        while received.current.count < 2 {
          try? await loop.clock.sleep(for: .milliseconds(1))
        }
        watcher.close()
      }
    }
    XCTAssertEqual(received.current, [SIGTERM, SIGINT])
    XCTAssertEqual(onLoop.current, [true, true])
  }

  func testDoesNotKeepTheLoopAlive() throws {
    try runLoop { loop in
      _ = try SignalWatcher(loop: loop, signals: [SIGUSR1]) { _ in }
    }
  }
}

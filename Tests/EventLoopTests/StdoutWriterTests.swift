import EventLoop
import Glibc
import XCTest

private func lines(_ range: ClosedRange<Int>, prefix: String = "line") -> String {
  range.map { "\(prefix) \($0)\n" }.joined()
}

final class StdoutWriterTests: XCTestCase {
  override class func setUp() {
    super.setUp()
    SignalWatcher.ignoreSIGPIPE()
  }

  func testAppendsInOneIterationBecomeOneWrite() throws {
    let pipe = TestPipe()
    let writeCounts = Locked<[Int]>([])
    let sharedStayedBlocking = Locked(true)
    try runLoop { loop in
      let writer = try StdoutWriter(loop: loop, fd: pipe.writeEnd)
      sharedStayedBlocking.withValue { $0 = !isNonBlocking(pipe.writeEnd) }
      Task(executorPreference: loop.executor) {
        for index in 1...1_000 { writer.append("line \(index)\n") }
        try? await loop.clock.sleep(for: .milliseconds(5))
        writeCounts.append(writer.writeCount)
        writer.append(Array("more 1\n".utf8))
        writer.append(Array("more 2\n".utf8)[...])
        Array("more 3\n".utf8).withUnsafeBytes { writer.append($0) }
        try? await loop.clock.sleep(for: .milliseconds(5))
        writeCounts.append(writer.writeCount)
        writer.close()
      }
    }
    pipe.closeWrite()
    let output = String(decoding: pipe.readToEnd(), as: UTF8.self)
    XCTAssertEqual(output, lines(1...1_000) + lines(1...3, prefix: "more"))
    XCTAssertEqual(writeCounts.current, [1, 2])
    XCTAssertTrue(sharedStayedBlocking.current)
  }

  func testWillFlushLetsTheHostHandOverItsBatchOncePerIteration() throws {
    let pipe = TestPipe()
    let hostBuffer = Locked("")
    let writeCount = Locked(0)
    try runLoop { loop in
      let writer = try StdoutWriter(loop: loop, fd: pipe.writeEnd)
      writer.willFlush = {
        let batch = hostBuffer.withValue { buffer in
          defer { buffer = "" }
          return buffer
        }
        writer.append(batch)
      }
      Task(executorPreference: loop.executor) {
        // The host only fills its own buffer; the writer pulls it after the poll.
        for index in 1...100 { hostBuffer.withValue { $0 += "line \(index)\n" } }
        try? await loop.clock.sleep(for: .milliseconds(5))
        hostBuffer.withValue { $0 += "last\n" }
        try? await loop.clock.sleep(for: .milliseconds(5))
        writeCount.withValue { $0 = writer.writeCount }
        writer.close()
      }
    }
    pipe.closeWrite()
    XCTAssertEqual(String(decoding: pipe.readToEnd(), as: UTF8.self), lines(1...100) + "last\n")
    XCTAssertEqual(writeCount.current, 2)
  }

  /// A batch `willFlush` hands over is written from the host's memory; what a full pipe does
  /// not take is copied, so the host may reuse its buffer at once, and later batches wait their
  /// turn behind it.
  func testBatchesLargerThanThePipeArriveWholeAndInOrder() throws {
    let pipe = TestPipe()
    let drained = Locked<[UInt8]>([])
    let readerThread = Locked<TestThread?>(nil)
    let batches = (0..<4).map { index in
      [UInt8](repeating: UInt8(ascii: "a") + UInt8(index), count: 300 * 1024)
    }
    let next = Locked(0)
    try runLoop { loop in
      let writer = try StdoutWriter(loop: loop, fd: pipe.writeEnd)
      // The host's one buffer, refilled for every batch: the writer must not keep it.
      let hostBuffer = Locked<[UInt8]>([])
      writer.willFlush = {
        guard next.current < batches.count else { return }
        hostBuffer.withValue { buffer in
          buffer.removeAll(keepingCapacity: true)
          buffer += batches[next.current]
          buffer.withUnsafeBytes { writer.append($0) }
          buffer.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        }
        next.withValue { $0 += 1 }
      }
      Task(executorPreference: loop.executor) {
        while next.current < batches.count {
          try? await loop.clock.sleep(for: .milliseconds(1))
        }
        readerThread.withValue { $0 = TestThread { drained.withValue { $0 = pipe.readToEnd() } } }
        writer.flushSynchronously()
      }
    }
    pipe.closeWrite()
    readerThread.current?.join()
    XCTAssertEqual(drained.current, Array(batches.joined()))
  }

  func testBackpressureRisesWithASlowReaderAndClearsWhenDrained() throws {
    let pipe = TestPipe()
    let signals = Locked<[Bool]>([])
    let bufferedAtSignal = Locked<[Int]>([])
    let written = Locked(0)
    let drained = Locked<[UInt8]>([])
    let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 100 * 1024)
    let readerThread = Locked<TestThread?>(nil)
    try runLoop { loop in
      let writer = try StdoutWriter(loop: loop, fd: pipe.writeEnd)
      writer.onBackpressure = { on in
        signals.append(on)
        bufferedAtSignal.append(writer.bufferedBytes)
      }
      Task(executorPreference: loop.executor) {
        // Nobody reads yet: keep producing, one chunk per iteration, until told to stop.
        while !writer.isBackpressured {
          writer.append(chunk)
          await Task.yield()
        }
        readerThread.withValue { $0 = TestThread { drained.withValue { $0 = pipe.readToEnd() } } }
        while writer.isBackpressured {
          try? await loop.clock.sleep(for: .milliseconds(1))
        }
        written.withValue { $0 = writer.writtenBytes }
        writer.flushSynchronously()
        written.withValue { $0 = writer.writtenBytes }
      }
    }
    pipe.closeWrite()
    readerThread.current?.join()
    XCTAssertEqual(signals.current, [true, false])
    XCTAssertGreaterThan(bufferedAtSignal.current[0], 1_048_576)
    XCTAssertLessThanOrEqual(bufferedAtSignal.current[1], 262_144)
    // Memory stayed bounded: production stopped right after the high-water mark.
    XCTAssertLessThan(bufferedAtSignal.current[0], 1_048_576 + 2 * chunk.count)
    XCTAssertEqual(drained.current.count, written.current)
    XCTAssertTrue(drained.current.allSatisfy { $0 == UInt8(ascii: "x") })
  }

  /// A host that gathers its output and hands it over in `willFlush` is told to stop before it
  /// hands anything over; the hand-over neither counts the bytes twice nor clears the signal.
  func testGatheredBytesCountTowardBackpressureUntilAppended() throws {
    let pipe = TestPipe()
    let signals = Locked<[Bool]>([])
    let gathered = Locked<[UInt8]>([])
    let seen = Locked<[String]>([])
    let drained = Locked(0)
    let readerThread = Locked<TestThread?>(nil)
    let batch = [UInt8](repeating: UInt8(ascii: "x"), count: 600 * 1024)
    try runLoop { loop in
      let writer = try StdoutWriter(loop: loop, fd: pipe.writeEnd)
      writer.onBackpressure = { on in signals.append(on) }
      writer.willFlush = {
        let bytes = gathered.withValue { bytes in
          defer { bytes = [] }
          return bytes
        }
        writer.append(bytes)
      }
      Task(executorPreference: loop.executor) {
        for _ in 1...2 {
          writer.gatheredBytes = gathered.withValue { bytes in
            bytes += batch
            return bytes.count
          }
          seen.append("\(signals.current) waiting \(writer.waitingBytes)")
        }
        try? await loop.clock.sleep(for: .milliseconds(5))
        seen.append("\(signals.current) gathered \(writer.gatheredBytes)")
        readerThread.withValue {
          $0 = TestThread { drained.withValue { $0 = pipe.readToEnd().count } }
        }
        for _ in 1...2_000 where writer.isBackpressured {
          try? await loop.clock.sleep(for: .milliseconds(1))
        }
        writer.flushSynchronously()
      }
    }
    pipe.closeWrite()
    readerThread.current?.join()
    XCTAssertEqual(
      seen.current,
      ["[] waiting 614400", "[true] waiting 1228800", "[true] gathered 0"])
    XCTAssertEqual(signals.current, [true, false])
    XCTAssertEqual(drained.current, 2 * batch.count)
  }

  func testReaderGoneReportsClosedOnceAndDropsLaterAppends() throws {
    let pipe = TestPipe()
    pipe.closeRead()
    let closedMessages = Locked<[String]>([])
    let appendsAfterClose = Locked(false)
    try runLoop { loop in
      let writer = try StdoutWriter(loop: loop, fd: pipe.writeEnd)
      writer.onClosed = { error in closedMessages.append(error.description) }
      Task(executorPreference: loop.executor) {
        writer.append("first\n")
        try? await loop.clock.sleep(for: .milliseconds(5))
        writer.append("second\n")
        try? await loop.clock.sleep(for: .milliseconds(5))
        appendsAfterClose.withValue { $0 = writer.isClosed }
        writer.flushSynchronously()
      }
    }
    XCTAssertEqual(closedMessages.current.count, 1)
    XCTAssertTrue(
      closedMessages.current.first?.contains("EPIPE") ?? false, "\(closedMessages.current)")
    XCTAssertTrue(appendsAfterClose.current)
  }

  func testReaderGoingAwayIsNoticedWithoutAWrite() throws {
    let pipe = TestPipe()
    let closedMessages = Locked<[String]>([])
    let noticedAfter = Locked<Duration?>(nil)
    try runLoop { loop in
      let writer = try StdoutWriter(loop: loop, fd: pipe.writeEnd)
      let alive = keepAlive(loop)
      let closedAt = Locked<ContinuousClock.Instant?>(nil)
      writer.onClosed = { error in
        closedMessages.append(error.description)
        noticedAfter.withValue { $0 = closedAt.current.map { .now - $0 } }
        alive.cancel()
      }
      Task(executorPreference: loop.executor) {
        try? await loop.clock.sleep(for: .milliseconds(20))
        closedAt.withValue { $0 = .now }
        pipe.closeRead()
      }
    }
    XCTAssertEqual(closedMessages.current.count, 1)
    XCTAssertTrue(
      closedMessages.current.first?.contains("EPIPE") ?? false, "\(closedMessages.current)")
    let after = try XCTUnwrap(noticedAfter.current)
    XCTAssertLessThan(after, .milliseconds(100))
  }

  func testASocketHalfClosedByItsReaderIsStillWritten() throws {
    var fds: [Int32] = [-1, -1]
    XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
    defer { for fd in fds { Glibc.close(fd) } }
    let (ours, theirs) = (fds[0], fds[1])
    shutdown(ours, Int32(SHUT_WR))
    let closed = Locked(false)
    try runLoop { loop in
      let writer = try StdoutWriter(loop: loop, fd: theirs)
      writer.onClosed = { _ in closed.withValue { $0 = true } }
      Task(executorPreference: loop.executor) {
        try? await loop.clock.sleep(for: .milliseconds(20))
        writer.append("still read\n")
        try? await loop.clock.sleep(for: .milliseconds(20))
        writer.close()
      }
    }
    XCTAssertFalse(closed.current)
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = read(ours, &buffer, buffer.count)
    XCTAssertEqual(String(decoding: buffer[..<max(0, count)], as: UTF8.self), "still read\n")
  }

  func testFlushSynchronouslyWritesWhatLibuvStillHolds() throws {
    let pipe = TestPipe()
    let big = lines(1...40_000)  // far more than a pipe buffer holds
    let received = Locked<[UInt8]>([])
    let queuedBeforeFlush = Locked(0)
    let readerThread = Locked<TestThread?>(nil)
    try runLoop { loop in
      let writer = try StdoutWriter(loop: loop, fd: pipe.writeEnd)
      Task(executorPreference: loop.executor) {
        writer.append(big)
        try? await loop.clock.sleep(for: .milliseconds(5))
        queuedBeforeFlush.withValue { $0 = writer.bufferedBytes }
        writer.append("exit\n")
        // A slow reader: the flush has to wait for it.
        readerThread.withValue {
          $0 = TestThread {
            pause(milliseconds: 20)
            received.withValue { $0 = pipe.readToEnd() }
          }
        }
        writer.flushSynchronously()
        writer.append("dropped\n")
      }
    }
    pipe.closeWrite()
    readerThread.current?.join()
    XCTAssertGreaterThan(queuedBeforeFlush.current, 0)
    XCTAssertEqual(String(decoding: received.current, as: UTF8.self), big + "exit\n")
  }

  func testRegularFileAndDevNullAreWrittenSynchronously() throws {
    var template = Array("/tmp/eventloop-out-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    defer { close(fd) }
    let devNull = open("/dev/null", O_WRONLY)
    defer { close(devNull) }
    let counts = Locked<[Int]>([])
    try runLoop { loop in
      let file = try StdoutWriter(loop: loop, fd: fd)
      let null = try StdoutWriter(loop: loop, fd: devNull)
      Task(executorPreference: loop.executor) {
        file.append(lines(1...500))
        null.append(lines(1...500))
        try? await loop.clock.sleep(for: .milliseconds(2))
        file.append("last\n")
        file.flushSynchronously()
        counts.withValue { $0 = [file.writeCount, null.writeCount, null.writtenBytes] }
      }
    }
    lseek(fd, 0, SEEK_SET)
    var contents = [UInt8](repeating: 0, count: 1 << 16)
    let count = contents.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    XCTAssertEqual(String(decoding: contents[..<count], as: UTF8.self), lines(1...500) + "last\n")
    XCTAssertEqual(counts.current, [2, 1, lines(1...500).utf8.count])
  }

  func testOutputLeavesWithoutWaitingForAnUnrelatedEvent() throws {
    // The loop is kept alive only by a reader on a silent pipe, so it would block in epoll
    // indefinitely; the line appended outside any callback must go out in the first iteration.
    let input = TestPipe()
    let output = TestPipe()
    let arrived = Locked(false)
    let observer = TestThread {
      var descriptor = pollfd(fd: output.readEnd, events: Int16(POLLIN), revents: 0)
      arrived.withValue { $0 = poll(&descriptor, 1, 2_000) == 1 }
      input.closeWrite()
    }
    try runLoop { loop in
      let reader = try StdinLineReader(loop: loop, fd: input.readEnd)
      reader.start()
      let writer = try StdoutWriter(loop: loop, fd: output.writeEnd)
      writer.append("x\n")
    }
    observer.join()
    XCTAssertTrue(arrived.current)
  }
}

import EventLoop
import Glibc
import XCTest

/// What a reader reported, in order, as comparable text.
private enum Event: Equatable, CustomStringConvertible {
  case line(Int, String)
  case overlong(Int, Int)
  case error(String)
  case end

  var description: String {
    switch self {
    case .line(let number, let text): "\(number): \(text)"
    case .overlong(let number, let bytes): "\(number): overlong \(bytes)"
    case .error(let message): "error \(message)"
    case .end: "end"
    }
  }
}

/// Starts a reader on `fd` that records every callback into `events`.
private func startRecording(
  loop: EventLoop, fd: Int32, maxLineBytes: Int = 1_048_576, events: Locked<[Event]>
) throws -> StdinLineReader {
  let reader = try StdinLineReader(loop: loop, fd: fd, maxLineBytes: maxLineBytes)
  reader.onLine = { bytes, number in events.append(.line(number, text(bytes))) }
  reader.onOverlongLine = { number, bytes in events.append(.overlong(number, bytes)) }
  reader.onError = { message in events.append(.error(message)) }
  reader.onEnd = { events.append(.end) }
  reader.start()
  return reader
}

/// A temporary file holding `contents`, open for reading at offset 0; removed at once.
private func temporaryFile(_ contents: [UInt8]) -> Int32 {
  var template = Array("/tmp/eventloop-test-XXXXXX".utf8CString)
  let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
  precondition(fd >= 0, "mkstemp failed")
  template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
  contents.withUnsafeBytes { precondition(write(fd, $0.baseAddress, $0.count) == $0.count) }
  lseek(fd, 0, SEEK_SET)
  return fd
}

/// A pseudo-terminal pair through /dev/ptmx (posix_openpt and friends are not visible to
/// Swift's Glibc module).
private func openPseudoTerminal() throws -> (master: Int32, slave: Int32) {
  let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
  try XCTSkipIf(master < 0, "no pseudo-terminals here")
  let unlockRequest: UInt = 0x4004_5431  // TIOCSPTLCK
  let numberRequest: UInt = 0x8004_5430  // TIOCGPTN
  var unlock: Int32 = 0
  var number: Int32 = 0
  XCTAssertEqual(ioctl(master, unlockRequest, &unlock), 0)
  XCTAssertEqual(ioctl(master, numberRequest, &number), 0)
  let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
  XCTAssertGreaterThanOrEqual(slave, 0)
  return (master, slave)
}

/// The mixed input of the pipe and file tests, in pieces that split lines and CRLFs.
private let mixedInput = [
  "fir", "st\r", "\n", "\n", "third\n", "\r\n",
  String(repeating: "x", count: 15), String(repeating: "y", count: 15), "zz\n",
  "normal\r\n", "sixteen-bytes-ok\n", "last",
]

private let mixedExpectation: [Event] = [
  .line(1, "first"), .line(3, "third"), .overlong(5, 32), .line(6, "normal"),
  .line(7, "sixteen-bytes-ok"), .line(8, "last"), .end,
]

final class StdinLineReaderTests: XCTestCase {
  func testPipeWithSplitLinesCRLFEmptyAndOverlongLines() throws {
    let pipe = TestPipe()
    let events = Locked<[Event]>([])
    let sharedStayedBlocking = Locked(true)
    try runLoop { loop in
      _ = try startRecording(loop: loop, fd: pipe.readEnd, maxLineBytes: 16, events: events)
      // The reader uses a private descriptor: the pipe we share must stay blocking.
      sharedStayedBlocking.withValue { $0 = !isNonBlocking(pipe.readEnd) }
      TestThread.detach {
        for piece in mixedInput {
          pipe.write(piece)
          pause(milliseconds: 2)
        }
        pipe.closeWrite()
      }
    }
    XCTAssertEqual(events.current, mixedExpectation)
    XCTAssertTrue(sharedStayedBlocking.current)
  }

  func testNamedFIFOWhoseWriterAlreadyLeftStillEnds() throws {
    let path = "/tmp/eventloop-fifo-\(getpid())"
    unlink(path)
    XCTAssertEqual(mkfifo(path, 0o600), 0)
    defer { unlink(path) }
    // Like `prog < fifo` where the writer finished before the program started reading.
    let readEnd = open(path, O_RDONLY | O_NONBLOCK)
    defer { close(readEnd) }
    let writeEnd = open(path, O_WRONLY)
    _ = "only line\n".withCString { write(writeEnd, $0, 10) }
    close(writeEnd)
    let events = Locked<[Event]>([])
    try runLoop { loop in
      _ = try startRecording(loop: loop, fd: readEnd, events: events)
    }
    XCTAssertEqual(events.current, [.line(1, "only line"), .end])
  }

  func testRegularFile() throws {
    let fd = temporaryFile(Array(mixedInput.joined().utf8))
    defer { close(fd) }
    let events = Locked<[Event]>([])
    try runLoop { loop in
      _ = try startRecording(loop: loop, fd: fd, maxLineBytes: 16, events: events)
    }
    XCTAssertEqual(events.current, mixedExpectation)
  }

  func testLargeFileAcrossManyReadBuffers() throws {
    let lineCount = 100_000
    var input: [UInt8] = []
    for index in 1...lineCount { input += Array("line number \(index)\n".utf8) }
    let fd = temporaryFile(input)
    defer { close(fd) }
    let received = Locked((count: 0, mismatches: 0))
    try runLoop { loop in
      let reader = try StdinLineReader(loop: loop, fd: fd)
      reader.onLine = { bytes, number in
        received.withValue {
          $0.count += 1
          if text(bytes) != "line number \(number)" { $0.mismatches += 1 }
        }
      }
      reader.start()
    }
    XCTAssertEqual(received.current.count, lineCount)
    XCTAssertEqual(received.current.mismatches, 0)
  }

  func testDevNullEndsAtOnce() throws {
    let fd = open("/dev/null", O_RDONLY)
    defer { close(fd) }
    let events = Locked<[Event]>([])
    try runLoop { loop in
      _ = try startRecording(loop: loop, fd: fd, events: events)
    }
    XCTAssertEqual(events.current, [.end])
  }

  func testOverlongLastLineWithoutNewline() throws {
    let pipe = TestPipe()
    pipe.write("ok\n" + String(repeating: "a", count: 100))
    pipe.closeWrite()
    let events = Locked<[Event]>([])
    try runLoop { loop in
      _ = try startRecording(loop: loop, fd: pipe.readEnd, maxLineBytes: 10, events: events)
    }
    XCTAssertEqual(events.current, [.line(1, "ok"), .overlong(2, 100), .end])
  }

  func testClosingFromALineCallbackStopsAtThatLine() throws {
    let pipe = TestPipe()
    pipe.write("a\nquit\nb\nc\n")
    pipe.closeWrite()
    let events = Locked<[Event]>([])
    try runLoop { loop in
      let reader = try StdinLineReader(loop: loop, fd: pipe.readEnd)
      reader.onLine = { bytes, number in
        events.append(.line(number, text(bytes)))
        if text(bytes) == "quit" { reader.close() }
      }
      reader.onEnd = { events.append(.end) }
      reader.start()
    }
    XCTAssertEqual(events.current, [.line(1, "a"), .line(2, "quit")])
  }

  func testPauseHoldsBackTheRestOfTheReadAndLaterReadsUntilResume() throws {
    let pipe = TestPipe()
    pipe.write("1\n2\n")
    let events = Locked<[Event]>([])
    let whilePaused = Locked<[Event]>([])
    try runLoop { loop in
      let reader = try startRecording(loop: loop, fd: pipe.readEnd, events: events)
      reader.onLine = { bytes, number in
        events.append(.line(number, text(bytes)))
        guard number == 1 else { return }
        reader.pause()
        Task(executorPreference: loop.executor) {
          try? await loop.clock.sleep(for: .milliseconds(40))
          whilePaused.withValue { $0 = events.current }
          reader.resume()
        }
      }
      TestThread.detach {
        pause(milliseconds: 5)
        pipe.write("3\n")
        pipe.closeWrite()
      }
    }
    // Line 2 came in the same read as line 1: it waits with line 3.
    XCTAssertEqual(whilePaused.current, [.line(1, "1")])
    XCTAssertEqual(events.current, [.line(1, "1"), .line(2, "2"), .line(3, "3"), .end])
  }

  /// Pausing from the callback of any line, or of every line, in a pipe or a file read whole:
  /// nothing more comes until `resume()`, the end included, and then everything comes in order
  /// with the numbers it has unpaused.
  func testPauseFromALineHoldsTheRestOfItsBufferUntilResume() throws {
    let input = Array(mixedInput.joined().utf8)
    let pieces = mixedExpectation.count - 1  // all but the end
    let pauseSets = (0..<pieces).map { Set([$0]) } + [Set(0..<pieces)]
    for pauseAt in pauseSets {
      for isFile in [false, true] {
        let pipe = TestPipe()
        let fd: Int32
        if isFile {
          fd = temporaryFile(input)
        } else {
          pipe.write(input)
          pipe.closeWrite()
          fd = pipe.readEnd
        }
        defer { if isFile { close(fd) } }
        let events = Locked<[Event]>([])
        let whilePaused = Locked<[[Event]]>([])
        try runLoop { loop in
          let reader = try StdinLineReader(loop: loop, fd: fd, maxLineBytes: 16)
          let record: @Sendable (Event) -> Void = { event in
            let index = events.withValue { events in
              events.append(event)
              return events.count - 1
            }
            guard pauseAt.contains(index) else { return }
            reader.pause()
            Task(executorPreference: loop.executor) {
              try? await loop.clock.sleep(for: .milliseconds(10))
              whilePaused.append(events.current)
              reader.resume()
            }
          }
          reader.onLine = { bytes, number in record(.line(number, text(bytes))) }
          reader.onOverlongLine = { number, bytes in record(.overlong(number, bytes)) }
          reader.onEnd = { events.append(.end) }
          reader.start()
        }
        let label = "pausing at \(pauseAt.sorted()) in a \(isFile ? "file" : "pipe")"
        XCTAssertEqual(events.current, mixedExpectation, label)
        XCTAssertEqual(
          whilePaused.current, pauseAt.sorted().map { Array(mixedExpectation[...$0]) }, label)
      }
    }
  }

  func testPausedBeforeStartReadsNothingUntilResume() throws {
    let fd = temporaryFile(Array("1\n".utf8))
    defer { close(fd) }
    let events = Locked<[Event]>([])
    let whilePaused = Locked<[Event]?>(nil)
    try runLoop { loop in
      let reader = try StdinLineReader(loop: loop, fd: fd)
      reader.onLine = { bytes, number in events.append(.line(number, text(bytes))) }
      reader.pause()
      reader.start()
      Task(executorPreference: loop.executor) {
        try? await loop.clock.sleep(for: .milliseconds(20))
        whilePaused.withValue { $0 = events.current }
        reader.resume()
      }
    }
    XCTAssertEqual(whilePaused.current, [])
    XCTAssertEqual(events.current, [.line(1, "1")])
  }

  func testTerminal() throws {
    let (master, slave) = try openPseudoTerminal()
    defer {
      close(slave)
      close(master)
    }
    let events = Locked<[Event]>([])
    try runLoop { loop in
      _ = try startRecording(loop: loop, fd: slave, events: events)
      TestThread.detach {
        // Canonical mode: the terminal hands over whole lines; ^D on an empty line is EOF.
        for piece in ["hello\n", "\n", "world\n", "\u{04}"] {
          _ = piece.utf8CString.withUnsafeBytes { write(master, $0.baseAddress, $0.count - 1) }
          pause(milliseconds: 5)
        }
      }
    }
    XCTAssertEqual(events.current, [.line(1, "hello"), .line(3, "world"), .end])
  }
}

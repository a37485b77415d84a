import ComposableCore
import EventLoop
import Logging
import Networking
@_spi(Hosting) import Protocol
import Storage

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the process on one libuv loop: builds the stores, feeds them stdin, writes stdout, and
/// decides when and how the process ends.
package enum Runtime {
  /// Runs `stores` until the input ends, `quit`, a signal or a closed stdout; returns the exit
  /// code. Throws when the loop or the standard streams cannot be set up.
  package static func run(_ stores: StoreCatalog, _ options: RunConfiguration) throws -> Int32 {
    occupyClosedStandardDescriptors()
    let logger = Logger.stderr(label: options.name, level: options.logLevel)
    SignalWatcher.ignoreSIGPIPE()
    let loop = try EventLoop()
    StoreActor.install(executor: loop.executor)
    let process = try StoreActor.assumeIsolated {
      let process = try ActorProcess(
        loop: loop, stores: stores, options: options, logger: logger)
      process.start()
      return process
    }
    loop.run()
    let exitCode = StoreActor.assumeIsolated { process.exitCode }
    do {
      try loop.shutdown()
    } catch {
      logger.error("the loop did not shut down cleanly: \(error)")
    }
    return exitCode
  }
}

/// Opens /dev/null on any of fds 0, 1 and 2 the process was started without.
///
/// Otherwise the next descriptor opened (libuv's epoll or eventfd) would take that number and be
/// used as a standard stream, and libuv aborts when it later closes a descriptor below 3. A
/// closed stdin then reads as empty input, a closed stdout as one that discards.
private func occupyClosedStandardDescriptors() {
  for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) < 0 {
    let opened = open("/dev/null", O_RDWR)
    if opened >= 0 && opened != fd {
      dup2(opened, fd)
      close(opened)
    }
  }
}

/// The running process: the session and its stores, and the loop handles that feed them.
///
/// End of input: lines already read are reduced, then the process waits until no effect is in
/// flight, for at most `--linger` seconds, cancels what still runs, and ends with an `exit`
/// line that counts the cancelled effects. `quit` and the signals that end a process (SIGINT,
/// SIGTERM, SIGHUP, …) cancel at once.
@StoreActor
final class ActorProcess {
  private enum Ending {
    case endOfInput
    case quit
    case signal(Int32)
    case stdoutClosed(LoopError)

    /// As the `exit` line gives it, and as traced effects' cancellations give it.
    var reason: String {
      switch self {
      case .endOfInput: "eof"
      case .quit: "quit"
      case .signal: "signal"
      case .stdoutClosed: "stdout closed"
      }
    }
  }

  private let loop: EventLoop
  private let options: RunConfiguration
  private let logger: Logger
  private let output = OutputLines()
  private let session: Session
  /// Set under `mcp`: it reads stdin, and what the session writes goes through it to stdout.
  private let mcp: MCPServer?
  private let http: HTTPClient
  private let webSocket: WebSocketClient
  private let time: ActionTime
  private let virtualTime: VirtualTimeControl?
  private let recorder: Recorder?
  /// Set under `--state-dir`.
  private let durability: Durability?
  /// Runs the storage's periodic work (syncs, checkpoints) off the loop thread.
  private var storageTask: Task<Void, Never>?
  /// Sweeps idle instances out of memory (`--passivate-after`).
  private var passivationTask: Task<Void, Never>?
  private let reader: StdinLineReader
  private let writer: StdoutWriter
  private let heapTrim: HeapTrim
  /// Closed while the writer is back-pressured: sockets' messages wait behind it.
  private let outputGate = OutputGate()
  private var signals: SignalWatcher?
  private var lingerTask: Task<Void, Never>?
  /// The reader reported the end of input, which it does only after delivering every line.
  private var inputEnded = false
  private var isFinished = false
  /// The reader pauses while either holds: too many bytes wait to be written, or an `advance`
  /// or `settle` runs.
  private var isBackpressured = false
  private var isHoldingInput = false
  private(set) var exitCode: Int32 = 0

  init(loop: EventLoop, stores: StoreCatalog, options: RunConfiguration, logger: Logger) throws {
    self.loop = loop
    self.options = options
    self.logger = logger

    http = HTTPClient(
      loop: loop,
      configuration: HTTPConfiguration(
        caFile: options.caFile, userAgent: "\(options.name)/\(options.version)"))
    webSocket = WebSocketClient(
      loop: loop, configuration: WebSocketConfiguration(caFile: options.caFile))
    let seed = options.seed ?? SeededRandom.randomSeed()
    logger.info("random seed: \(seed)")
    let clock: any Clock<Duration>
    switch options.clock {
    case .live:
      clock = loop.clock
      time = .wall()
      virtualTime = nil
    case .virtual:
      let virtualClock = VirtualClock()
      clock = virtualClock
      time = .virtual(virtualClock)
      virtualTime = try VirtualTimeControl(
        clock: virtualClock, loop: loop, maximumWakeUps: options.maxAdvanceWakeUps)
    }
    switch options.stateLocation {
    case .folder(let folder)?:
      durability = Durability(
        storage: try SQLiteInstanceStorage(folder: folder, fsync: options.fsync),
        now: { [time] in time.now() })
    case .database(let url, let process, let lease)?:
      durability = Durability(
        storage: try PostgreSQLInstanceStorage(url: url, processID: process, lease: lease),
        now: { [time] in time.now() })
    case nil:
      durability = nil
    }
    let sequence = ActionSequence(last: durability?.lastSequence ?? 0)
    let dataDirectory = options.dataDirectory ?? DataDirectory.defaultPath(for: options.name)
    if let path = options.record {
      let recorder = try Recorder(
        path: path,
        header: RecordingHeader(
          binary: options.version, stores: stores.names,
          arguments: options.recordedArguments, seed: seed,
          clock: options.clock, startTime: time.start,
          fingerprints: stores.fingerprints, recordsAnswers: true,
          files: RecordingHeader.files(in: dataDirectory, log: logger)))
      let time = time
      output.didWriteActionLine = { line in recorder.record(line, elapsed: time.elapsed) }
      output.didWriteEffectLine = { line in recorder.record(line: line) }
      // A durable instance stopped resumes from its stored state, as its replay goes on.
      if durability == nil {
        output.didWriteStoppedLine = { line in recorder.record(line, elapsed: time.elapsed) }
      }
      self.recorder = recorder
    } else {
      recorder = nil
    }
    let liveServices = Services(
      http: HTTPService(client: http, timeout: .milliseconds(Int64(options.httpTimeout * 1000))),
      webSocket: .live(webSocket, output: outputGate), threadPool: loop.threadPool, clock: clock,
      random: SeededRandom(seed: seed), now: { [time] in time.now() },
      dataDirectory: dataDirectory,
      log: logger,
      actionLogger: ActionLogger(isEnabled: logger.logLevel <= .debug) { [logger] line in
        logger.debug("\(line)")
      })
    var services = liveServices
    if let recorder {
      let time = time
      services = liveServices.recordingAnswers(
        to: AnswerLog(
          write: { line in recorder.record(line, elapsed: time.elapsed) },
          lastSeq: { sequence.last }))
    }
    session = Session(
      stores: stores.factories(
        options: options.storeOptions, services: services,
        output: StoreOutput(
          lines: output, sequence: sequence, mode: options.emit,
          acceptsEffectActions: options.allowEffectActions,
          // MCP follows each call's effects by their lines.
          effectTraceTime: options.traces.contains(.effects) || options.mcp != nil
            ? { [time] in time.now() - time.start } : nil,
          labelsEffects: recorder != nil)),
      output: output, sequence: sequence, maxDepth: options.maxDepth,
      maxInstances: options.maxInstances, maxActiveInstances: options.maxActiveInstances,
      durability: durability)
    session.timeControl = virtualTime
    if let configuration = options.mcp {
      mcp = MCPServer(
        session: session, name: options.name, version: options.version,
        configuration: configuration)
    } else {
      mcp = nil
    }
    writer = try StdoutWriter(loop: loop)
    heapTrim = try HeapTrim(loop: loop)
    reader = try StdinLineReader(loop: loop, maxLineBytes: options.maxLineBytes)
  }

  func start() {
    if let mcp {
      mcp.startTimer = { [unowned self] duration, body in
        let timer = after(duration, body)
        return { timer.cancel() }
      }
    } else {
      session.writeReady(version: options.version)
    }
    session.didRequestQuit = { [unowned self] in finish(.quit) }
    session.onStoreIdle { [unowned self] in
      if inputEnded && self.session.effectsInFlight == 0 { finish(.endOfInput) }
    }
    let session = session
    let drain = StoreActor.assumingIsolated { [unowned self] in drainOutput() }
    writer.willFlush = { drain(()) }
    // A batch is stored with the time at its commit, which must be the time its lines were
    // reduced at: the lines before an advance are committed before it moves the clock.
    if durability != nil {
      virtualTime?.willMoveClock = { [unowned self] in drainOutput() }
    }
    writer.onBackpressure = { [unowned self] isBackpressured in
      StoreActor.assumeIsolated {
        self.isBackpressured = isBackpressured
        outputGate.setOpen(!isBackpressured)
        updateReading()
      }
    }
    session.isHoldingInputChanged = { [unowned self] isHolding in
      isHoldingInput = isHolding
      updateReading()
      // The line that ended the hold was written from a check callback, possibly after this
      // iteration's flush: hand it over now rather than when the next input arrives.
      if !isHolding { drainOutput() }
    }
    writer.onClosed = { [unowned self] error in
      StoreActor.assumeIsolated {
        // Also called by `finish`'s last flush, after its ending: a failure there still decides
        // the exit. A host going away is a clean end; anything else (a full disk) lost lines,
        // and the exit says so, as --record's does.
        if !error.isPeerGone {
          logger.error("cannot write stdout (\(error)): output was lost")
          if exitCode == 0 { exitCode = 74 }
        }
        finish(.stdoutClosed(error))
      }
    }
    // After every line the writer hears how much output waits for it, so that back-pressure
    // pauses the reader at the line that crossed the mark, whatever a line writes.
    let output = output
    let writer = writer
    let mcp = mcp
    // Two callbacks rather than one that asks which front reads stdin: a counter tap is a few
    // thousand instructions, and the question, with what it retains, was 1% of them.
    // The callback runs on the loop thread and the session reads the bytes before returning,
    // so the buffer never crosses threads or outlives the call.
    let handleLine: @Sendable ((line: UnsafeRawBufferPointer, number: Int)) -> Void
    if let mcp {
      handleLine = StoreActor.assumingIsolated { line in
        mcp.handleLine(line.line, lineNumber: line.number)
        writer.gatheredBytes = output.bytes.count + mcp.bytes.count
      }
    } else {
      handleLine = StoreActor.assumingIsolated { line in
        session.handleLine(line.line, lineNumber: line.number)
        writer.gatheredBytes = output.bytes.count
      }
    }
    reader.onLine = { line, lineNumber in handleLine((line, lineNumber)) }
    let limit = options.maxLineBytes
    reader.onOverlongLine = { lineNumber, _ in
      StoreActor.assumeIsolated {
        if let mcp {
          mcp.rejectOverlongLine(lineNumber: lineNumber, limit: limit)
        } else {
          session.rejectOverlongLine(lineNumber: lineNumber, limit: limit)
        }
        writer.gatheredBytes = output.bytes.count + (mcp?.bytes.count ?? 0)
      }
    }
    reader.onEnd = { [unowned self] in StoreActor.assumeIsolated { endOfInput() } }
    reader.onError = { [unowned self] message in
      StoreActor.assumeIsolated {
        logger.error("reading stdin failed: \(message)")
        endOfInput()
      }
    }
    do {
      signals = try SignalWatcher(loop: loop) { [unowned self] signal in
        StoreActor.assumeIsolated { finish(.signal(signal)) }
      }
    } catch {
      logger.warning("cannot watch the signals that end the process: \(error)")
    }
    startStorageWork()
    startPassivation()
    reader.start()
    // Hands the ready line to the writer now, which arms its flush: waiting for the first check
    // phase would hold it until the first input arrives.
    drainOutput()
  }

  /// About once a second, hands the storage's periodic work (a sync under `--fsync batch`, a
  /// checkpoint of a long write-ahead log) to the thread pool, so the loop never waits for it.
  private func startStorageWork() {
    guard let durability else { return }
    let pool = loop.threadPool
    storageTask = repeating(every: .seconds(1)) {
      guard let work = durability.storage.periodicWork() else { return }
      _ = try? await pool.run { _ in work() }
    }
  }

  /// Sweeps four times per `--passivate-after`: an instance leaves memory after that long idle,
  /// and at most a quarter of it more.
  private func startPassivation() {
    guard let seconds = options.passivateAfter else { return }
    let session = session
    passivationTask = repeating(every: .milliseconds(max(1, Int64(seconds * 250)))) {
      session.passivateIdleInstances(unusedForSweeps: 5)
    }
  }

  /// Runs `body` every `interval` of the loop's clock until cancelled.
  private func repeating(
    every interval: Duration, _ body: @escaping @StoreActor () async -> Void
  ) -> Task<Void, Never> {
    let clock = loop.clock
    return Task(executorPreference: loop.executor) {
      while (try? await clock.sleep(for: interval)) != nil {
        await body()
      }
    }
  }

  /// Runs `body` once after `interval` of the loop's clock, unless cancelled first.
  private func after(
    _ interval: Duration, _ body: @escaping @StoreActor () -> Void
  ) -> Task<Void, Never> {
    let clock = loop.clock
    return Task(executorPreference: loop.executor) {
      guard (try? await clock.sleep(for: interval)) != nil else { return }
      await body()
    }
  }

  private func updateReading() {
    isBackpressured || isHoldingInput ? reader.pause() : reader.resume()
  }

  /// Hands the iteration's lines to the writer, after storing what they show (under
  /// `--state-dir`): a line the host reads is never ahead of the folder. The commit comes
  /// before the time's tick ends, so that a batch is stored with the time its reducers saw,
  /// which an export gives a replay as theirs.
  private func drainOutput() {
    session.endTick()
    session.commitChanges()
    time.endTick()
    // A commit that failed took lines back: what the writer was told is gathered must shrink
    // with them, or it would count them as waiting forever and hold the input back.
    writer.gatheredBytes = output.bytes.count
    recorder?.flush()
    // Every loop iteration comes here; the ones that wrote lines did work.
    if !output.bytes.isEmpty { heapTrim.noteWork() }
    handOutputToWriter()
  }

  /// Under `mcp`, the session's lines go to the MCP server, and its lines to stdout.
  private func handOutputToWriter() {
    guard let mcp else { return output.drain { writer.append($0) } }
    output.drain { mcp.takeSessionOutput($0) }
    mcp.drain { writer.append($0) }
  }

  /// Under the virtual clock, what is left after settling waits for time that will not come:
  /// it is cancelled at once. Live, effects get up to `--linger` seconds.
  private func endOfInput() {
    guard !inputEnded else { return }
    inputEnded = true
    // An MCP client that closes stdin is done with the server: it waits for no effect, and
    // kills a server that lingers.
    if mcp != nil { return finish(.endOfInput) }
    guard let virtualTime else { return lingerForEffects() }
    virtualTime.settle { [unowned self] in finish(.endOfInput) }
  }

  private func lingerForEffects() {
    let running = session.effectsInFlight
    guard running > 0 else { return finish(.endOfInput) }
    logger.info("end of input: waiting up to \(options.linger) s for \(running) effect(s)")
    let clock = loop.clock
    let linger = Duration.milliseconds(Int64(options.linger * 1000))
    lingerTask = Task(executorPreference: loop.executor) { [unowned self] in
      do {
        try await clock.sleep(for: linger)
      } catch {
        return
      }
      await finish(.endOfInput)
    }
  }

  private func finish(_ ending: Ending) {
    guard !isFinished else { return }
    isFinished = true
    lingerTask?.cancel()
    storageTask?.cancel()
    passivationTask?.cancel()
    reader.close()
    signals?.close()
    virtualTime?.close()
    let cancelled = session.cancelAllEffects(because: ending.reason)
    // The clients run on this same loop executor; closing their handles lets the loop end.
    http.assumeIsolated { $0.shutdown() }
    let webSocket = webSocket
    Task(executorPreference: loop.executor) {
      await webSocket.shutdown(gracePeriod: .milliseconds(500))
    }
    drainOutput()
    switch ending {
    case .endOfInput, .quit:
      output.exit(reason: ending.reason, cancelledEffects: cancelled)
    case .signal(let signal):
      output.exit(
        reason: ending.reason, cancelledEffects: cancelled,
        signal: SignalWatcher.endingSignals.first { $0.number == signal }?.name ?? "\(signal)")
      exitCode = 128 + signal
    case .stdoutClosed(let error):
      logger.notice("stdout closed (\(error)); exiting")
    }
    if cancelled > 0 { logger.info("cancelled \(cancelled) effect(s)") }
    mcp?.answerWaitingCalls()
    handOutputToWriter()
    if let failure = recorder?.close() {
      logger.error("the recording is incomplete: \(failure)")
      if exitCode == 0 { exitCode = 74 }
    }
    do {
      try durability?.storage.close()
    } catch {
      logger.error("\(options.stateLocation?.option ?? ""): \(error)")
      if exitCode == 0 { exitCode = 74 }
    }
    writer.flushSynchronously()
    writer.close()
    heapTrim.close()
  }
}

extension Logger {
  /// Logs go to stderr only: stdout carries nothing but protocol lines.
  static func stderr(label: String, level: Logger.Level) -> Logger {
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = level
    return Logger(label: label) { _ in handler }
  }
}

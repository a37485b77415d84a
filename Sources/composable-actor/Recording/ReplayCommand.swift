import ArgumentParser
import ComposableCore
import EventLoop
import JSON
import Protocol

#if canImport(Glibc)
  import Glibc
#endif

extension ComposableActor {
  /// `composable-actor replay FILE`: re-reduces a recording and checks every patch.
  struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "replay",
      abstract: "Re-reduce a --record log without running effects, checking every patch.",
      discussion: """
        The actions effects sent are in the log, so no effect runs; each action's time is the \
        recorded one. Replay stops at the first action whose patch differs from the recorded \
        one and reports it on stderr. Exit codes: 0 when every patch matched, 1 at a \
        divergence, 65 for an unreadable recording, 64 for bad arguments.
        """)

    @Argument(help: "A file written by `composable-actor --record`.")
    var file: String

    @Option(help: "Stop after this seq and print every store's snapshot there (time travel).")
    var until: Int?

    @Flag(help: "Print each replayed action line, as the run printed it.")
    var emit = false

    @Flag(help: "Print a scenario file (see `test`) that asserts what the recording holds.")
    var toScenario = false

    func validate() throws {
      if toScenario && (emit || until != nil) {
        throw ValidationError("--to-scenario prints a scenario only: no --emit or --until")
      }
    }

    func run() throws {
      let recording: RecordingFile
      do {
        recording = try RecordingFile(path: file)
      } catch {
        throw failure("\(file): \(error)", code: 65)
      }
      if toScenario {
        return write(ScenarioWriter.scenario(from: recording, named: file))
      }
      if let until, !recording.actions.contains(where: { $0.seq == until }) {
        throw ValidationError("--until \(until): the recording has no action with that seq")
      }
      let options: ComposableActor.Run
      do {
        options = try ScriptedSession.options(
          arguments: recording.header.arguments, dataDir: "/nonexistent")
      } catch {
        throw failure(
          "\(file): the recorded arguments do not parse: \(Run.message(for: error))", code: 65)
      }
      let loop = try EventLoop()
      StoreActor.install(executor: loop.executor)
      defer { try? loop.shutdown() }
      try StoreActor.assumeIsolated {
        let stores = ScriptedSession(
          loop: loop, options: options, seed: recording.header.seed,
          startTime: recording.header.startTime, replaysTime: true)
        try replay(recording, on: stores)
      }
    }

    @StoreActor
    private func replay(_ recording: RecordingFile, on stores: ScriptedSession) throws {
      for recorded in recording.actions {
        guard let store = stores.session.store(named: recorded.store) else {
          throw failure(
            "line \(recorded.line): no store named \"\(recorded.store)\" in this binary", code: 65)
        }
        stores.time.replay(elapsed: recorded.elapsed)
        do {
          try store.replay(
            recorded.action, source: recorded.source == "effect" ? .effect : .host,
            id: recorded.id)
        } catch {
          throw diverged(recorded, "the store refused the action: \(error.message)", actual: nil)
        }
        var printed: [UInt8] = []
        stores.output.drain { printed.append(contentsOf: $0) }
        let actual = (try? JSONParser.parse(printed))?["patch"]
        if emit { write(printed) }
        if actual != recorded.patch {
          throw diverged(recorded, "the patch differs from the recorded one", actual: actual)
        }
        if recorded.seq == until {
          for name in stores.session.storeNames {
            stores.output.snapshot(
              store: name, seq: recorded.seq, id: nil,
              state: stores.session.store(named: name)!.snapshot())
          }
          stores.output.drain { write(Array($0)) }
          return
        }
      }
      if !emit {
        write(
          Array("\(file): \(recording.actions.count) actions replayed, every patch matched\n".utf8))
      }
    }

    private func diverged(_ recorded: RecordedAction, _ message: String, actual: JSONValue?)
      -> Error
    {
      let divergence: JSONValue = [
        "type": "divergence", "seq": .int(recorded.seq), "line": .int(recorded.line),
        "store": .string(recorded.store), "action": recorded.action,
        "expected": recorded.patch, "actual": actual ?? .null, "message": .string(message),
      ]
      if emit { write(divergence.serialized + [UInt8(ascii: "\n")]) }
      return failure(
        """
        \(file):\(recorded.line): replay diverged at seq \(recorded.seq): \(message)
          action:   \(recorded.store) \(recorded.action.jsonString)
          expected: \(recorded.patch.jsonString)
          actual:   \(actual?.jsonString ?? "(none)")
        """, code: 1)
    }

    private func failure(_ message: String, code: Int32) -> Error {
      let bytes = Array("composable-actor replay: \(message)\n".utf8)
      _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
      return ExitCode(code)
    }

    private func write(_ bytes: [UInt8]) {
      var rest = bytes[...]
      while !rest.isEmpty {
        let written = rest.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        guard written > 0 else { return }
        rest = rest.dropFirst(written)
      }
    }
  }
}

/// Turns a recording into a scenario that asserts what happened: host actions become `send`
/// steps, effect actions `receive` steps, each with its recorded patch and time. Effects are
/// `recorded`, since a live run's network cannot be scripted after the fact.
enum ScenarioWriter {
  static func scenario(from recording: RecordingFile, named file: String) -> [UInt8] {
    let header = recording.header
    var lines: [JSONValue] = [
      [
        "scenario": .string("replay of \(file)"), "effects": "recorded",
        "seed": .string(String(header.seed)), "startTime": .int(header.startTime),
        "arguments": .array(
          removingOptions(["--clock", "--data-dir"], from: header.arguments).map(JSONValue.string)),
      ]
    ]
    for action in recording.actions {
      lines.append([
        .init(action.source == "effect" ? "receive" : "send"): action.action,
        "store": .string(action.store), "patch": action.patch, "t": .int(action.elapsed),
      ])
    }
    return lines.flatMap { $0.serialized + [UInt8(ascii: "\n")] }
  }
}

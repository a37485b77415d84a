import ComposableRuntime

/// The readers of the files a user may hand to `test`, `replay` and `timeline`, for the fuzz
/// target (`scripts/fuzz.sh`), which feeds them arbitrary bytes: none may crash, hang or grow
/// without bound, whatever a file holds.
///
///     @_spi(Fuzzing) import ComposableHarness
///     FuzzingEntryPoints.readScenarios(bytes, scripted: ["nthPrimes"])
@_spi(Fuzzing) public enum FuzzingEntryPoints {
  /// Reads `bytes` as a scenario file, and takes a clock through each scenario's times as
  /// `test` does (its start, advances, answers' delays, recorded times), without the stores:
  /// what a file says must not overflow there; nil when it holds scenarios, else why not.
  package static func readScenarios(_ bytes: [UInt8], scripted: Set<String>) -> String? {
    let scenarios: [Scenario]
    do {
      scenarios = try ScenarioFile.parse(bytes, file: "fuzz.jsonl", scripted: scripted)
    } catch {
      return error.description
    }
    for scenario in scenarios { passTime(of: scenario) }
    return nil
  }

  private static func passTime(of scenario: Scenario) {
    let clock = VirtualClock()
    let virtual = ActionTime.virtual(clock, start: scenario.startTime)
    let replayed = ActionTime.replayed(start: scenario.startTime)
    var steps = scenario.steps.makeIterator()
    // The steps were checked when the file was read.
    while let step = try? steps.next() {
      switch step.action {
      case .advance(let ms): clock.move(to: clock.now.advanced(by: .milliseconds(ms)))
      case .answers(_, _, let delay): _ = clock.now.advanced(by: delay).offset.wholeMilliseconds()
      case .http(let response):
        _ = clock.now.advanced(by: response.delay).offset.wholeMilliseconds()
      case .send(_, _, _, let elapsed?), .receive(_, _, _, _, let elapsed?):
        replayed.replay(elapsed: elapsed)
        _ = replayed.now()
      default: break
      }
      _ = virtual.now()
    }
  }

  /// Reads `bytes` as a recording and, when it is one, draws it both ways `timeline` does,
  /// gives its actions their times as `replay` does, and turns it into a scenario as
  /// `replay --to-scenario` does, which is read back as `test` would; nil when it is a
  /// recording, else why not.
  package static func readRecording(_ bytes: [UInt8], scripted: Set<String>) -> String? {
    let recording: RecordingFile
    do {
      recording = try RecordingFile(bytes: bytes, name: "fuzz.jsonl")
    } catch {
      return error.description
    }
    _ = TextTimeline(
      recording: recording, title: "fuzz",
      lanes: TextTimeline.lanes(of: recording, stores: recording.header.stores, instances: []),
      width: 120
    ).render()
    _ = try? TimelinePage.html(
      reading: RecordingReader(bytes: bytes, name: "fuzz.jsonl"), title: "fuzz",
      initialStates: [:])
    let time = ActionTime.replayed(start: recording.header.startTime)
    for action in recording.actions {
      time.replay(elapsed: action.elapsed)
      _ = time.now()
    }
    _ = readScenarios(
      ScenarioWriter.scenario(from: recording, named: "fuzz.jsonl", initialStates: [:]),
      scripted: scripted)
    return nil
  }
}

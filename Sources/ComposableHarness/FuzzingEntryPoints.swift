/// The readers of the files a user may hand to `test`, `replay` and `timeline`, for the fuzz
/// target (`scripts/fuzz.sh`), which feeds them arbitrary bytes: none may crash, hang or grow
/// without bound, whatever a file holds.
///
///     @_spi(Fuzzing) import ComposableHarness
///     FuzzingEntryPoints.readScenarios(bytes, scripted: ["nthPrimes"])
@_spi(Fuzzing) public enum FuzzingEntryPoints {
  /// Reads `bytes` as a scenario file; nil when it holds scenarios, else why not.
  public static func readScenarios(_ bytes: [UInt8], scripted: Set<String>) -> String? {
    do {
      _ = try ScenarioFile.parse(bytes, file: "fuzz.jsonl", scripted: scripted)
      return nil
    } catch {
      return error.description
    }
  }

  /// Reads `bytes` as a recording and, when it is one, draws it both ways `timeline` does;
  /// nil when it is a recording, else why not.
  public static func readRecording(_ bytes: [UInt8]) -> String? {
    let recording: RecordingFile
    do {
      recording = try RecordingFile(bytes: bytes, name: "fuzz.jsonl", keepingLines: true)
    } catch {
      return error.description
    }
    _ = TextTimeline(
      recording: recording, title: "fuzz",
      lanes: TextTimeline.lanes(of: recording, stores: recording.header.stores, instances: []),
      width: 120
    ).render()
    _ = TimelinePage.html(for: recording, title: "fuzz", initialStates: [:])
    return nil
  }
}

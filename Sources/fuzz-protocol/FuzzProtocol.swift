import ComposableCore
import JSON
import PrimesFeature
import Protocol

// libFuzzer entry point for the input path: line → JSON parser → envelope → action decoding →
// reducer → output lines. Built only by scripts/fuzz.sh (with -sanitize=fuzzer -D FUZZING);
// a normal build gets a main that says so.
//
// Oracles: nothing crashes; every output line the session writes is one valid JSON object; and
// where the compact reader of action lines accepts a line, the general parser reads the same
// message from it.

#if FUZZING
  typealias FuzzInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: FuzzInput
  ) -> CInt

  /// SwiftPM links every executable with `main` aliased to `<target>_main`, so the entry point
  /// is ours and hands over to libFuzzer's driver.
  @_cdecl("fuzz_protocol_main")
  func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv, fuzzOneInput)
  }

  func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarness.shared.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
  }
#else
  @main
  enum FuzzUsage {
    static func main() {
      print("fuzz-protocol is a libFuzzer target: run scripts/fuzz.sh SECONDS")
    }
  }
#endif

/// One session over the primes store with dependencies that answer at once, so effects
/// finish when the executor is drained after each input.
final class FuzzHarness: @unchecked Sendable {
  static let shared = FuzzHarness()

  let executor = ManualExecutor()
  let session: Session

  init() {
    StoreActor.install(executor: executor)
    session = StoreActor.assumeIsolated {
      let dependencies = PrimesDependencies(
        nthPrime: NthPrimeClient(largestN: 1_000) { n in n == 1 ? 2 : nil },
        favoritePrimes: FavoritePrimesStorage(load: { [2, 3] }, save: { _ in }),
        now: { 0 })
      let output = OutputLines()
      let sequence = ActionSequence()
      let primes = StoreHost(
        store: Store(
          initialState: PrimesState(), reducer: PrimesReducer(dependencies: dependencies)),
        descriptor: StoreDescriptor(name: "primes", summary: "", actions: [], stateSchema: [:]),
        output: StoreOutput(lines: output, sequence: sequence, mode: .actions))
      return Session(
        stores: [StoreFactory(descriptor: primes.descriptor) { primes }], output: output,
        sequence: sequence)
    }
  }

  func check(_ line: UnsafeRawBufferPointer) {
    checkCompactReading(line)
    // Read synchronously on this thread before returning: the buffer never crosses threads.
    nonisolated(unsafe) let line = line
    let session = session
    let lines = StoreActor.assumeIsolated {
      session.handleLine(line, lineNumber: 1)
      var bytes: [UInt8] = []
      session.output.drain { bytes.append(contentsOf: $0) }
      return bytes
    }
    executor.runUntilIdle()
    for output in lines.split(separator: UInt8(ascii: "\n")) {
      let parsed = try? output.withUnsafeBytes { try JSONParser.parse($0) }
      guard case .object? = parsed else {
        fatalError(
          "the session wrote a line that is not a JSON object: \(String(decoding: output, as: UTF8.self))"
        )
      }
    }
  }

  private func checkCompactReading(_ line: UnsafeRawBufferPointer) {
    for maxDepth in [1, 2, JSONParser.defaultMaxDepth] {
      guard let compact = CompactActionLine(line, maxDepth: maxDepth)?.message else { continue }
      let general = try? InputMessage(JSONParser.parse(line, maxDepth: maxDepth))
      guard let general, general == compact, "\(general)" == "\(compact)" else {
        fatalError(
          "the compact reader read \(compact) from \(String(decoding: line, as: UTF8.self)), "
            + "the general parser \(general.map { "\($0)" } ?? "an error")")
      }
    }
  }
}

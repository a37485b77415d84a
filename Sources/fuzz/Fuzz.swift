import Glibc

// libFuzzer targets, one per way input reaches the product, chosen by FUZZ_TARGET:
//   protocol   a line on stdin, through every store (the default)
//   scenario   a scenario file, as `test` reads it
//   recording  a recording, as `replay` and `timeline` read and draw it
// Built only by scripts/fuzz.sh, whose COMPOSABLE_ACTOR_FUZZ gives it -sanitize=fuzzer and
// -D FUZZING in Package.swift; a normal build gets a main that says so.

/// The target FUZZ_TARGET names; nil for a name that is none.
func selectedTarget() -> ((UnsafeRawBufferPointer) -> Void)? {
  switch getenv("FUZZ_TARGET").map({ String(cString: $0) }) ?? "protocol" {
  case "protocol": { FuzzHarness.shared.check($0) }
  case "scenario": checkScenarioFile
  case "recording": checkRecording
  default: nil
  }
}

#if FUZZING
  typealias FuzzInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: FuzzInput
  ) -> CInt

  /// Read once, before libFuzzer's driver starts calling `fuzzOneInput` from its one thread.
  nonisolated(unsafe) var target: (UnsafeRawBufferPointer) -> Void = { _ in }

  /// SwiftPM links every executable with `main` aliased to `<target>_main`, so the entry point
  /// is ours and hands over to libFuzzer's driver.
  @_cdecl("fuzz_main")
  func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    guard let selected = selectedTarget() else {
      print("FUZZ_TARGET must be protocol, scenario or recording")
      return 64
    }
    target = selected
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv, fuzzOneInput)
  }

  func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target(UnsafeRawBufferPointer(start: data, count: size))
    return 0
  }
#else
  @main
  enum FuzzUsage {
    static func main() {
      print("fuzz is a libFuzzer target: run scripts/fuzz.sh SECONDS")
    }
  }
#endif

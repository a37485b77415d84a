@_spi(Fuzzing) import ComposableHarness

// The files a user may hand over: scenario files (`test`) and recordings (`replay`, `timeline`).
// Oracle: reading them, passing their times, drawing a recording both ways and turning it into
// a scenario never crash; a refusal is an ordinary outcome.

func checkScenarioFile(_ bytes: UnsafeRawBufferPointer) {
  _ = FuzzingEntryPoints.readScenarios(Array(bytes), scripted: ["nthPrimes"])
}

func checkRecording(_ bytes: UnsafeRawBufferPointer) {
  _ = FuzzingEntryPoints.readRecording(Array(bytes), scripted: ["nthPrimes"])
}

import ComposableHarness
import ComposableRuntime
import XCTest

/// Replay through the harness library, against the tally store: a recording whose patches the
/// store reproduces passes; one it does not is a divergence.
final class ReplayTests: XCTestCase {
  private let header =
    #"{"type":"recording","version":1,"protocol":1,"binary":"test","stores":["tally"],"#
    + #""arguments":[],"seed":"0","clock":"virtual","startTime":0}"#

  private func bump(seq: Int, count: Int) -> String {
    #"{"type":"action","store":"tally","seq":\#(seq),"source":"host","action":{"type":"bump"},"#
      + #""patch":[{"op":"replace","path":"/count","value":\#(count)}],"t":0}"#
  }

  func testARecordingTheStoreReproducesReplaysCleanly() throws {
    XCTAssertEqual(try replay([header, bump(seq: 1, count: 1), bump(seq: 2, count: 2)]), 0)
  }

  func testAPatchTheStoreDoesNotMakeIsADivergence() throws {
    XCTAssertEqual(try replay([header, bump(seq: 1, count: 1), bump(seq: 2, count: 5)]), 1)
  }

  func testAnEffectActionRecordedIsReplayedWithoutItsEffect() throws {
    let doubled =
      #"{"type":"action","store":"tally","seq":2,"source":"effect","action":{"type":"doubled","value":2},"#
      + #""patch":[{"op":"replace","path":"/count","value":2}],"t":0}"#
    XCTAssertEqual(try replay([header, bump(seq: 1, count: 1), doubled]), 0)
  }

  func testAStoreTheBinaryDoesNotHaveMakesTheRecordingUnreadable() throws {
    let other = bump(seq: 1, count: 1).replacingOccurrences(of: "\"tally\"", with: "\"other\"")
    XCTAssertEqual(try replay([header, other]), 65)
  }

  private func replay(_ lines: [String]) throws -> Int32 {
    try withRecording(lines) { _, path in
      Replay(file: path, until: nil, emit: false, toScenario: false, harness: TallyStore.harness)
        .run()
    }
  }
}

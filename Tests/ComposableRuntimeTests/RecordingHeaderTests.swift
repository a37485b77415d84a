import ComposableRuntime
import JSON
@_spi(Hosting) import Protocol
import XCTest

/// The recording header as written and read back, with `initialStates`, which `export` writes
/// for a history that starts at a stored snapshot; and the recording `export` makes.
final class RecordingHeaderTests: XCTestCase {
  private let states: [String: JSONValue] = [
    "primes": ["count": 470, "favoritePrimes": [2, 3]], "votes": ["isLoading": false],
  ]

  func testInitialStatesSurviveTheHeader() throws {
    let header = RecordingHeader(
      binary: "1.0", stores: ["primes", "votes"], arguments: [], seed: 0, clock: .live,
      startTime: 1_763_700_000_000, initialStates: states)
    let json = header.json
    XCTAssertEqual(json["initialStates"], .object(JSONObject(states.map { ($0.key, $0.value) })))
    let text = json.serialized
    let read = try RecordingHeader(JSONParser.parse(text))
    XCTAssertEqual(read.initialStates, states)
    XCTAssertEqual(read.json.serialized, text)
  }

  func testAHeaderWithoutInitialStatesWritesNoneAndReadsNone() throws {
    let header = RecordingHeader(
      binary: "1.0", stores: ["primes"], arguments: [], seed: 7, clock: .virtual, startTime: 0)
    XCTAssertNil(header.json["initialStates"])
    XCTAssertEqual(try RecordingHeader(header.json).initialStates, [:])
  }

  func testInitialStatesMustBeAnObjectOfObjects() throws {
    let header = RecordingHeader(
      binary: "1.0", stores: ["primes"], arguments: [], seed: 0, clock: .live, startTime: 0)
    for malformed: JSONValue in [[1, 2], ["primes": 3], ["primes": [["count": 1]]], "primes"] {
      var object = try XCTUnwrap(header.json.objectValue)
      object["initialStates"] = malformed
      XCTAssertThrowsError(try RecordingHeader(.object(object)), "\(malformed)") { error in
        XCTAssertEqual(
          (error as? RecordingError)?.description,
          "line 1: the header's \"initialStates\" is missing or malformed")
      }
    }
  }

  func testAStoreListedTwiceIsRefused() throws {
    let header = RecordingHeader(
      binary: "1.0", stores: ["primes", "votes"], arguments: [], seed: 0, clock: .live,
      startTime: 0)
    var object = try XCTUnwrap(header.json.objectValue)
    object["stores"] = ["primes", "votes", "other", "votes"]
    XCTAssertThrowsError(try RecordingHeader(.object(object))) { error in
      XCTAssertEqual(
        (error as? RecordingError)?.description,
        "line 1: the header's \"stores\" lists \"votes\" twice")
    }
  }

  /// An action line as a process printed it for the primes store's instance `a`.
  private func incremented(seq: Int, to count: Int) -> String {
    #"{"type":"action","store":"primes","instance":"a","seq":\#(seq),"source":"host","#
      + #""action":{"type":"counter.incrTapped"},"#
      + #""patch":[{"op":"replace","path":"/count","value":\#(count)}]}"#
  }

  private func history(base: String?, _ batches: [(time: Int, line: String)]) -> StoredHistory {
    StoredHistory(
      base: base.map { Array($0.utf8) },
      batches: batches.enumerated().map { number, batch in
        StoredBatch(number: number + 4, time: batch.time, lines: Array((batch.line + "\n").utf8))
      })
  }

  private func export(_ history: StoredHistory) throws -> [String] {
    let bytes = try HistoryRecording.bytes(
      of: history, store: "primes", binary: "1.0", stores: StoreCatalog([]))
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  func testAnExportedHistoryIsItsLinesWithTheirTimesAfterAHeaderThatStartsAtItsBase() throws {
    let lines = [incremented(seq: 9, to: 471), incremented(seq: 12, to: 472)]
    let written = try export(
      history(
        base: #"{"count":470,"favoritePrimes":[2,3]}"#,
        [(time: 1_000, line: lines[0]), (time: 1_250, line: lines[1])]))
    XCTAssertEqual(written.count, 3)
    let header = try RecordingHeader(JSONParser.parse(written[0]))
    XCTAssertEqual(header.startTime, 1_000)
    XCTAssertEqual(header.arguments, [])
    XCTAssertEqual(header.initialStates, ["primes": ["count": 470, "favoritePrimes": [2, 3]]])
    XCTAssertEqual(written[1], String(lines[0].dropLast()) + #","t":0}"#)
    XCTAssertEqual(written[2], String(lines[1].dropLast()) + #","t":250}"#)
  }

  func testAHistoryFromTheInitialStateHasNoInitialStates() throws {
    let written = try export(history(base: nil, [(time: 5, line: incremented(seq: 1, to: 1))]))
    XCTAssertEqual(try RecordingHeader(JSONParser.parse(written[0])).initialStates, [:])
  }

  func testAHistoryOfStateLinesIsNoRecording() {
    let line = #"{"type":"state","store":"primes","seq":3,"actions":3,"patch":[]}"#
    XCTAssertThrowsError(try export(history(base: nil, [(time: 5, line: line)]))) { error in
      XCTAssertTrue("\(error)".contains("--emit actions"), "\(error)")
    }
  }
}

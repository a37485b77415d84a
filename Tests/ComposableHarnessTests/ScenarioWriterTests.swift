import JSON
import XCTest

@testable import ComposableHarness

/// `replay --to-scenario` on a recording with answers: the exact scenario it writes.
final class ScenarioWriterTests: XCTestCase {
  private let header =
    #"{"type":"recording","version":1,"protocol":1,"binary":"t","stores":["s"],"arguments":[],"#
    + #""seed":"4","clock":"live","startTime":1000,"answers":true,"files":{"list.json":"[1]"}}"#

  func testAnswersArePlacedWhereTheirEffectAskedWithTheDelayTheyTook() throws {
    let lines = try scenario([
      header,
      #"{"type":"action","store":"s","seq":1,"source":"host","action":{"type":"load"},"patch":[{"op":"replace","path":"/loading","value":true}],"t":10}"#,
      #"{"type":"action","store":"s","seq":2,"source":"host","action":{"type":"tap"},"patch":[{"op":"replace","path":"/taps","value":1}],"t":15}"#,
      #"{"type":"answer","dependency":"http","after":1,"url":"http://h/items?page=2","status":200,"body":"[2]","t":40}"#,
      #"{"type":"action","store":"s","seq":3,"source":"effect","action":{"type":"loaded","value":[2]},"patch":[{"op":"replace","path":"/loading","value":false},{"op":"replace","path":"/items","value":[2]}],"t":40}"#,
      #"{"type":"answer","dependency":"nthPrimes","after":2,"key":"3","cancelled":true,"t":50}"#,
    ])
    XCTAssertEqual(
      lines,
      [
        #"{"scenario":"replay of r.jsonl","seed":"4","startTime":1000,"arguments":[]}"#,
        #"{"files":{"list.json":"[1]"}}"#,
        #"{"advance":10}"#,
        #"{"http":{"path":"/items?page=2","times":1,"status":200,"body":"[2]","delay":30}}"#,
        #"{"send":{"type":"load"},"store":"s","state":{"loading":true}}"#,
        #"{"advance":5}"#,
        #"{"nthPrimes":{"3":null},"delay":36}"#,
        #"{"send":{"type":"tap"},"store":"s","state":{"taps":1}}"#,
        #"{"advance":25}"#,
        #"{"receive":{"type":"loaded","value":[2]},"store":"s","state":{"loading":false,"items":[2]}}"#,
        #"{"skipInFlightEffects":true}"#,
      ])
  }

  func testAnswersOfOneMillisecondComeAMicrosecondApartInTheOrderTheyCameWithTheirMethod() throws {
    let lines = try scenario([
      header,
      #"{"type":"action","store":"s","seq":1,"source":"host","action":{"type":"load"},"patch":[],"t":0}"#,
      #"{"type":"answer","dependency":"http","after":1,"url":"http://h/b","method":"POST","requestBody":"{\"a\":1}","status":200,"body":"b","t":3}"#,
      #"{"type":"answer","dependency":"http","after":1,"url":"http://h/a","status":200,"body":"a","t":3}"#,
    ])
    XCTAssertEqual(
      Array(lines[2...3]),
      [
        #"{"http":{"method":"POST","path":"/b","requestBody":{"a":1},"times":1,"status":200,"body":"b","delay":2.999}}"#,
        #"{"http":{"path":"/a","times":1,"status":200,"body":"a","delay":3}}"#,
      ])
  }

  func testWebSocketEventsArePeerStepsAndSentMessagesAreChecked() throws {
    let lines = try scenario([
      header,
      #"{"type":"action","store":"s","seq":1,"source":"host","action":{"type":"connect"},"patch":[],"t":0}"#,
      #"{"type":"answer","dependency":"websocket","didOpen":{"protocol":"p"},"t":3}"#,
      #"{"type":"action","store":"s","seq":2,"source":"effect","action":{"type":"opened"},"patch":[{"op":"replace","path":"/open","value":true}],"t":3}"#,
      #"{"type":"action","store":"s","seq":3,"source":"host","action":{"type":"say"},"patch":[],"t":9}"#,
      #"{"type":"answer","dependency":"websocket","sent":{"text":"hi"},"t":9}"#,
      #"{"type":"answer","dependency":"websocket","didClose":{"code":4000,"reason":"bye"},"t":12}"#,
      #"{"type":"action","store":"s","seq":4,"source":"effect","action":{"type":"closed"},"patch":[{"op":"replace","path":"/open","value":false}],"t":12}"#,
    ])
    XCTAssertEqual(
      Array(lines[1...]),
      [
        #"{"files":{"list.json":"[1]"}}"#,
        #"{"websocket":{"accept":"later","protocol":"p"}}"#,
        #"{"send":{"type":"connect"},"store":"s"}"#,
        #"{"advance":3}"#,
        #"{"peer":{"accept":true}}"#,
        #"{"receive":{"type":"opened"},"store":"s","state":{"open":true}}"#,
        #"{"advance":6}"#,
        #"{"send":{"type":"say"},"store":"s"}"#,
        #"{"peer":{"expect":{"sent":[{"text":"hi"}]}}}"#,
        #"{"advance":3}"#,
        #"{"peer":{"close":{"code":4000,"reason":"bye"}}}"#,
        #"{"receive":{"type":"closed"},"store":"s","state":{"open":false}}"#,
        #"{"skipInFlightEffects":true}"#,
      ])
  }

  func testARecordingWithoutAnswersKeepsItsEffectsRecorded() throws {
    let old =
      #"{"type":"recording","version":1,"protocol":1,"binary":"t","stores":["s"],"arguments":[],"#
      + #""seed":"4","clock":"live","startTime":1000}"#
    let lines = try scenario([
      old,
      #"{"type":"action","store":"s","seq":1,"source":"effect","action":{"type":"x"},"patch":[],"t":2}"#,
    ])
    XCTAssertEqual(
      lines,
      [
        #"{"scenario":"replay of r.jsonl","seed":"4","startTime":1000,"arguments":[],"effects":"recorded"}"#,
        #"{"receive":{"type":"x"},"store":"s","patch":[],"t":2}"#,
      ])
  }

  private func scenario(_ lines: [String]) throws -> [String] {
    let recording = try RecordingFile(
      bytes: Array(lines.joined(separator: "\n").utf8) + [10], name: "r.jsonl")
    let written = ScenarioWriter.scenario(
      from: recording, named: "r.jsonl",
      initialStates: ["s": ["loading": false, "taps": 0, "items": [], "open": false]])
    return String(decoding: written, as: UTF8.self).split(separator: "\n").map(String.init)
  }
}

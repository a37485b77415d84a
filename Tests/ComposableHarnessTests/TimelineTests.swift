import ComposableHarness
import ComposableRuntime
import JSON
import XCTest

/// `timeline`: a recording drawn as text swimlanes and as a self-contained page.
final class TimelineTests: XCTestCase {
  private func header(stores: [String] = ["tally"]) -> String {
    #"{"type":"recording","version":1,"protocol":1,"binary":"test","stores":["#
      + stores.map { "\"\($0)\"" }.joined(separator: ",")
      + #"],"arguments":[],"seed":"0","clock":"virtual","startTime":0}"#
  }

  private func action(
    _ seq: Int, _ type: String, store: String = "tally", instance: String? = nil,
    effect: Int? = nil, id: String? = nil, t: Int = 0
  ) -> String {
    let source = effect == nil ? "host" : "effect"
    return #"{"type":"action","store":"\#(store)","# + member(instance)
      + #""seq":\#(seq),"#
      + (id.map { #""id":\#($0),"# } ?? "")
      + #""source":"\#(source)","# + (effect.map { #""effect":\#($0),"# } ?? "")
      + #""action":{"type":"\#(type)"},"patch":[],"t":\#(t)}"#
  }

  private func effect(
    _ number: Int, _ event: String, cause: Int, store: String = "tally", instance: String? = nil,
    extra: String = "", t: Int = 0
  ) -> String {
    #"{"type":"effect","store":"\#(store)","# + member(instance)
      + #""effect":\#(number),"event":"\#(event)","#
      + #""cause":\#(cause),"operator":"run"\#(extra),"t":\#(t)}"#
  }

  /// `"instance":"KEY",` for a named instance, nothing for the default one.
  private func member(_ instance: String?) -> String {
    instance.map { #""instance":"\#($0)","# } ?? ""
  }

  func testEachEffectIsALineDownItsLaneFromItsStartToItsEnd() throws {
    let text = try timeline([
      header(),
      action(1, "start", id: #""go""#),
      effect(1, "started", cause: 1, extra: #","cancelID":"work""#),
      effect(1, "sleeping", cause: 1, extra: #","until":500"#),
      action(2, "tick", effect: 1, t: 500),
      effect(1, "finished", cause: 1, extra: #","cancelID":"work""#, t: 500),
    ])
    XCTAssertEqual(
      text,
      """
      recording.jsonl: 2 actions in 1 store (virtual clock); 1 effect: 1 finished, 0 cancelled, \
      0 failed, 0 still running
      t ms  seq  tally
         0    1    ● start  id "go"
         0       ┌ effect 1 started: run, cancel id work, by seq 1
         0       │ effect 1 sleeping until 500 ms
       500    2  ├ ◆ tick  (effect 1)
       500       └ effect 1 finished

      """)
  }

  func testEffectsAtOnceTakeAColumnEachAndAFreedColumnIsTakenAgain() throws {
    let text = try timeline([
      header(),
      action(1, "start"),
      effect(1, "started", cause: 1),
      effect(2, "started", cause: 1),
      effect(1, "cancelled", cause: 1, extra: #","by":{"reason":"cancel","seq":2}"#),
      action(2, "stop"),
      effect(3, "started", cause: 2),
      effect(2, "failed", cause: 1, extra: #","error":"timed out""#),
      effect(3, "finished", cause: 2),
    ])
    XCTAssertEqual(
      text,
      """
      recording.jsonl: 2 actions in 1 store (virtual clock); 3 effects: 1 finished, 1 cancelled, \
      1 failed, 0 still running
      t ms  seq  tally
         0    1      ● start
         0       ┌   effect 1 started: run, by seq 1
         0       │ ┌ effect 2 started: run, by seq 1
         0       └ │ effect 1 cancelled: cancel at seq 2
         0    2    │ ● stop
         0       ┌ │ effect 3 started: run, by seq 2
         0       │ └ effect 2 failed: timed out
         0       └   effect 3 finished

      """)
  }

  func testAnEffectWithNoEndInTheRecordingIsStillRunningAtTheEnd() throws {
    let text = try timeline([
      header(), action(1, "start", t: 40), effect(1, "started", cause: 1, t: 40),
    ])
    XCTAssertEqual(
      text,
      """
      recording.jsonl: 1 action in 1 store (virtual clock); 1 effect: 0 finished, 0 cancelled, \
      0 failed, 1 still running
      t ms  seq  tally
        40    1    ● start
        40       ┌ effect 1 started: run, by seq 1
        40       ┊ effect 1 still running at the end

      """)
  }

  /// Found by the recording fuzz target: an effect number in two stores' lanes (a run never
  /// writes that, a file may) indexed one lane with the other's column.
  func testTheSameEffectNumberInTwoStoresIsTwoEffects() throws {
    let text = try timeline([
      header(stores: ["a", "b"]),
      action(1, "start", store: "a"),
      effect(1, "started", cause: 1, store: "a"),
      effect(2, "started", cause: 1, store: "a"),
      effect(2, "started", cause: 1, store: "b"),
      effect(2, "finished", cause: 1, store: "b"),
    ])
    XCTAssertEqual(
      text,
      """
      recording.jsonl: 1 action in 2 stores (virtual clock); 3 effects: 1 finished, \
      0 cancelled, 0 failed, 2 still running
      t ms  seq  a                                                       b
         0    1      ● start
         0       ┌   effect 1 started: run, by seq 1
         0       │ ┌ effect 2 started: run, by seq 1
         0       │ │                                                     ┌ effect 2 started: run, by seq 1
         0       │ │                                                     └ effect 2 finished
         0       ┊ │ effect 1 still running at the end
         0         ┊ effect 2 still running at the end

      """)
  }

  func testARecordingWithoutEffectLinesSaysEffectsWereNotTraced() throws {
    XCTAssertEqual(
      try timeline([header(), action(1, "start")]),
      """
      recording.jsonl: 1 action in 1 store (virtual clock); effects were not traced (record \
      with run --trace effects to see them)
      t ms  seq  tally
         0    1  ● start

      """)
  }

  func testEveryLaneButTheLastIsCutToItsShareOfTheWidth() throws {
    let lines = [
      header(stores: ["tally", "other", "unused"]),
      action(1, "aVeryLongActionNameThatDoesNotFit", id: #""and an id too""#),
      action(2, "anotherVeryLongActionNameThatFitsBecauseItIsLast", store: "other"),
    ]
    XCTAssertEqual(
      try timeline(lines, arguments: (.text, [], 40)),
      """
      recording.jsonl: 2 actions in 2 stores (virtual clock); effects were not traced (record \
      with run --trace effects to see them)
      t ms  seq  tally             other
         0    1  ● aVeryLongActi…
         0    2                    ● anotherVeryLongActionNameThatFitsBecauseItIsLast

      """)
    XCTAssertEqual(
      try timeline(lines, arguments: (.text, ["other"], 40)).split(separator: "\n").dropFirst(),
      ["t ms  seq  other", "   0    2  ● anotherVeryLongActionNameThatFitsBecauseItIsLast"])
  }

  /// Over instances: one lane per instance, the default one named as its store; `other` has
  /// no line of its default instance, so no lane for it.
  private var overInstances: [String] {
    [
      header(stores: ["tally", "other"]),
      action(1, "start"),
      action(2, "start", instance: "alice"),
      effect(1, "started", cause: 2, instance: "alice"),
      action(3, "tick", instance: "alice", effect: 1, t: 5),
      effect(1, "finished", cause: 2, instance: "alice", t: 5),
      action(4, "start", store: "other", instance: "alice", t: 5),
      effect(2, "started", cause: 4, store: "other", instance: "alice", t: 5),
      action(5, "stop", instance: "bob", t: 9),
    ]
  }

  func testEachInstanceIsALaneOfItsOwnWithItsEffects() throws {
    XCTAssertEqual(
      try timeline(overInstances),
      """
      recording.jsonl: 5 actions in 4 instances of 2 stores (virtual clock); 2 effects: \
      1 finished, 0 cancelled, 0 failed, 1 still running
      t ms  seq  tally                     tally "alice"               tally "bob"               other "alice"
         0    1  ● start
         0    2                              ● start
         0                                 ┌ effect 1 started: run, …
         5    3                            ├ ◆ tick  (effect 1)
         5                                 └ effect 1 finished
         5    4                                                                                    ● start
         5                                                                                       ┌ effect 2 started: run, by seq 4
         9    5                                                        ● stop                    │
         9                                                                                       ┊ effect 2 still running at the end

      """)
  }

  func testInstancesAreChosenByStoreAndByKey() throws {
    let lanes = { (stores: [String], instances: [String]) in
      try self.timeline(self.overInstances, arguments: (.text, stores, 300), instances: instances)
        .split(separator: "\n")[1].split(separator: "  ").dropFirst(2)
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    XCTAssertEqual(try lanes(["tally"], []), ["tally", #"tally "alice""#, #"tally "bob""#])
    XCTAssertEqual(try lanes([], ["alice"]), [#"tally "alice""#, #"other "alice""#])
    XCTAssertEqual(try lanes(["other"], ["alice"]), [#"other "alice""#])
    XCTAssertEqual(try lanes(["tally"], ["bob", "alice"]), [#"tally "alice""#, #"tally "bob""#])
    for (stores, instances) in [([], ["carol"]), (["other"], ["bob"]), (["tally"], [""])] {
      XCTAssertThrowsError(
        try timeline(overInstances, arguments: (.text, stores, 120), instances: instances)
      ) { XCTAssertEqual(($0 as? TimelineExit)?.code, 64, "\(stores) \(instances)") }
    }
  }

  func testAStoreTheRecordingDoesNotHaveIsRefused() throws {
    XCTAssertThrowsError(
      try timeline([header(), action(1, "start")], arguments: (.text, ["nope"], 120))
    ) { XCTAssertEqual(($0 as? TimelineExit)?.code, 64) }
  }

  func testAnUnreadableRecordingIsRefused() throws {
    XCTAssertThrowsError(try timeline([header(), "{\"type\":\"action\""])) {
      XCTAssertEqual(($0 as? TimelineExit)?.code, 65)
    }
  }

  func testThePageCarriesTheRecordingAndTheInitialStateOfEachStoreTheBinaryHosts() throws {
    let tricky = #""</script><script>alert(1)</script>""#
    let page = try timeline(
      [
        header(stores: ["tally", "other"]), action(1, "start", id: tricky),
        effect(1, "started", cause: 1),
      ],
      arguments: (.html, [], 120))
    let opening = #"<script type="application/json" id="recording-data">"#
    let start = try XCTUnwrap(page.range(of: opening)).upperBound
    let end = try XCTUnwrap(page.range(of: "</script>", range: start..<page.endIndex)).lowerBound
    let data = try JSONParser.parse(Array(page[start..<end].utf8))
    XCTAssertEqual(data["title"], "recording.jsonl")
    XCTAssertEqual(data["header"]?["stores"], ["tally", "other"])
    XCTAssertEqual(
      data["stores"],
      [["name": "tally", "initialState": ["count": 0]], ["name": "other", "initialState": nil]])
    XCTAssertEqual(data["lines"]?.arrayValue?.count, 2)
    XCTAssertEqual(
      data["lines"]?.arrayValue?[0]["id"], .string("</script><script>alert(1)</script>"),
      "the id is whole, and its < written as \\u003c so that it cannot close the element")
    XCTAssertEqual(data["lines"]?.arrayValue?[1]["event"], "started")
    for marker in ["/*{{style}}*/", "{{data}}", "/*{{script}}*/"] {
      XCTAssertFalse(page.contains(marker), "\(marker) is filled in")
    }
  }

  private struct TimelineExit: Error {
    let code: Int32
  }

  private func timeline(
    _ lines: [String],
    arguments: (format: Timeline.Format, stores: [String], width: Int) = (.text, [], 120),
    instances: [String] = []
  ) throws -> String {
    try withRecording(lines) { folder, path in
      let code = Timeline(
        file: path, format: arguments.format, output: "\(folder)/out", stores: arguments.stores,
        instances: instances, width: arguments.width, harness: TallyStore.harness
      ).run()
      guard code == 0 else { throw TimelineExit(code: code) }
      return String(decoding: try FileIO.readAll("\(folder)/out", limit: 1 << 20), as: UTF8.self)
    }
  }
}

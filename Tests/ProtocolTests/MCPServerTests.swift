import ComposableCore
import ComposableTestSupport
import JSON
import PrimesFeature
@_spi(Hosting) import Protocol
import XCTest

/// Tool names, resource URIs, JSON-RPC framing, and the server over a real session.
final class MCPServerTests: XCTestCase {
  // MARK: Tool names

  func testToolsAreTheHostActionsNamedStoreThenType() {
    let tools = MCPTools(stores: [
      StoreDescriptor(
        name: "primes", summary: "",
        actions: [
          .init("counter.incrTapped", sentBy: .host, "Adds one."),
          .init("counter.nthPrimeResponse", sentBy: .effect, "The answer."),
          .init(
            "counter.countChanged", sentBy: .host, "Sets count.",
            payload: [.init("value", ["type": "integer"])]),
        ], stateSchema: [:])
    ])
    XCTAssertEqual(
      tools.tools.map(\.json),
      [
        [
          "name": "primes__counter_incrTapped", "title": "primes: counter.incrTapped",
          "description": "Adds one.",
          "inputSchema": [
            "type": "object",
            "properties": [
              "instance": [
                "type": "string",
                "description": Self.instanceDescription,
              ]
            ],
            "additionalProperties": false,
          ],
        ],
        [
          "name": "primes__counter_countChanged", "title": "primes: counter.countChanged",
          "description": "Sets count.",
          "inputSchema": [
            "type": "object",
            "properties": [
              "value": ["type": "integer"],
              "instance": [
                "type": "string",
                "description": Self.instanceDescription,
              ],
            ],
            "required": ["value"],
            "additionalProperties": false,
          ],
        ],
      ])
  }

  func testNamesThatCollideOrRunLongAreMadeUniqueTheSameWayEveryTime() {
    let long = String(repeating: "veryLongActionName.", count: 5) + "end"
    let store = StoreDescriptor(
      name: "s", summary: "",
      actions: [
        .init("a.b", sentBy: .host, ""), .init("a_b", sentBy: .host, ""),
        .init(long, sentBy: .host, ""), .init("é!", sentBy: .host, ""),
      ], stateSchema: [:])
    let names = MCPTools(stores: [store]).tools.map(\.name)
    XCTAssertEqual(names, MCPTools(stores: [store]).tools.map(\.name))
    XCTAssertEqual(names[0], "s__a_b")
    XCTAssertTrue(names[1].hasPrefix("s__a_b_"))
    XCTAssertEqual(names[1].count, 6 + 1 + 8)
    XCTAssertEqual(names[2].count, 64)
    XCTAssertTrue(names[2].hasPrefix("s__veryLongActionName_veryLong"))
    XCTAssertEqual(names[3], "s____")
    XCTAssertEqual(Set(names).count, 4)
    let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
    for name in names { XCTAssertTrue(name.allSatisfy(allowed.contains), name) }
  }

  func testAPayloadFieldNamedInstanceKeepsItsName() {
    let tools = MCPTools(stores: [
      StoreDescriptor(
        name: "s", summary: "",
        actions: [
          .init("moved", sentBy: .host, "", payload: [.init("instance", ["type": "integer"])])
        ], stateSchema: [:])
    ])
    XCTAssertFalse(tools.tools[0].takesInstance)
    XCTAssertEqual(
      tools.tools[0].json["inputSchema"]?["properties"], ["instance": ["type": "integer"]])
  }

  // MARK: Resources

  func testResourceURIs() throws {
    XCTAssertEqual(MCPResource(uri: "composable-actor://describe"), .describe)
    XCTAssertEqual(
      MCPResource(uri: "composable-actor://primes/state"), .state(store: "primes", instance: nil))
    let key = try InstanceKey(validating: "user 42/é")
    let named = MCPResource.state(store: "primes", instance: key)
    XCTAssertEqual(named.uri, "composable-actor://primes/instances/user%2042%2F%C3%A9/state")
    XCTAssertEqual(MCPResource(uri: named.uri), named)
    for bad in [
      "composable-actor://", "composable-actor:///state", "composable-actor://primes",
      "composable-actor://primes/instances//state", "composable-actor://primes/instances/%zz/state",
      "composable-actor://primes/instances/%0A/state", "other://primes/state",
      "composable-actor://primes/state/more",
    ] {
      XCTAssertNil(MCPResource(uri: bad), bad)
    }
  }

  // MARK: JSON-RPC

  func testMessagesAreReadAsJSONRPCSays() throws {
    XCTAssertEqual(
      try JSONRPC.message(["jsonrpc": "2.0", "id": 1, "method": "ping"]),
      .request(id: 1, method: "ping", params: [:]))
    XCTAssertEqual(
      try JSONRPC.message(["jsonrpc": "2.0", "method": "n", "params": ["a": 1]]),
      .notification(method: "n", params: ["a": 1]))
    XCTAssertEqual(try JSONRPC.message(["jsonrpc": "2.0", "id": "x", "result": [:]]), .response)
    let failures: [(JSONValue, JSONRPC.Failure)] = [
      (
        [["jsonrpc": "2.0"]],
        .init(.invalidRequest, "batches are not supported: send one message per line")
      ),
      (3, .init(.invalidRequest, "a message must be a JSON object, got 3")),
      (
        ["jsonrpc": "2.0", "id": true, "method": "m"],
        .init(.invalidRequest, "\"id\" must be a string or a number, got true")
      ),
      (["id": 2, "method": "m"], .init(.invalidRequest, "\"jsonrpc\" must be \"2.0\"", id: 2)),
      (
        ["jsonrpc": "2.0", "id": 2],
        .init(.invalidRequest, "\"method\" (a string) is required", id: 2)
      ),
      (
        ["jsonrpc": "2.0", "id": 2, "method": 1],
        .init(.invalidRequest, "\"method\" must be a string", id: 2)
      ),
      (
        ["jsonrpc": "2.0", "id": 2, "method": "m", "params": [1]],
        .init(.invalidParams, "\"params\" must be an object, got an array", id: 2)
      ),
    ]
    for (value, expected) in failures {
      XCTAssertThrowsError(try JSONRPC.message(value), "\(value)") { error in
        XCTAssertEqual(error as? JSONRPC.Failure, expected)
      }
    }
  }

  // MARK: The server over a session

  func testInitializeNegotiatesTheVersionAndGatesEverythingButPing() {
    let answers = serve([
      #"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
      #"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
      #"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}"#,
      #"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}"#,
    ])
    XCTAssertEqual(answers.count, 4)
    XCTAssertEqual(
      answers[0],
      [
        "jsonrpc": "2.0", "id": 1,
        "error": [
          "code": -32600,
          "message": "tools/list: the session is not initialized: send initialize first",
        ],
      ])
    XCTAssertEqual(answers[1], ["jsonrpc": "2.0", "id": 2, "result": [:]])
    XCTAssertEqual(answers[2]["result"]?["protocolVersion"], "2025-06-18")
    XCTAssertEqual(answers[3]["result"]?["protocolVersion"], "2024-11-05")
    XCTAssertEqual(
      answers[3]["result"]?["capabilities"],
      [
        "tools": ["listChanged": false], "resources": ["subscribe": true, "listChanged": false],
        "logging": [:],
      ])
  }

  func testACallAnswersOnceItsEffectsFinishedWithItsLinesAndTheState() {
    let answers = serve([
      Self.initialize,
      #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"primes__counter_nthPrimeButtonTapped","arguments":{"instance":"k"},"_meta":{"progressToken":"t"}}}"#,
    ])
    XCTAssertEqual(answers.count, 4)
    XCTAssertEqual(
      answers[1],
      [
        "jsonrpc": "2.0", "method": "notifications/progress",
        "params": ["progressToken": "t", "progress": 1, "message": "counter.nthPrimeButtonTapped"],
      ])
    XCTAssertEqual(answers[2]["params"]?["progress"], 2)
    let result = answers[3]["result"]
    XCTAssertEqual(result?["isError"], false)
    let structured = result?["structuredContent"]
    XCTAssertEqual(result?["content"], [["type": "text", "text": .string(structured!.jsonString)]])
    XCTAssertEqual(structured?["settled"], true)
    XCTAssertEqual(structured?["instance"], "k")
    XCTAssertEqual(structured?["effectsInFlight"], 0)
    XCTAssertEqual(
      structured?["lines"]?.arrayValue?.map { $0["action"]?["type"] },
      ["counter.nthPrimeButtonTapped", "counter.nthPrimeResponse"])
    XCTAssertEqual(structured?["lines"]?.arrayValue?.map { $0["id"] }, ["mcp-1", "mcp-1"])
    XCTAssertEqual(
      structured?["state"]?["alertNthPrimeFailure"],
      ["n": 0, "message": "There is no 0th prime: n must be 1 or more."])
  }

  func testACallWhoseEffectsRunOnAnswersWhenItsWaitEnds() {
    let call =
      #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"primes__counter_nthPrimeButtonTapped"}}"#
    XCTAssertEqual(
      serve([Self.initialize, call], dependencies: .neverAnswering).count, 1,
      "no answer while the effect runs")
    let answers = serve([Self.initialize, call], dependencies: .neverAnswering, endingWaits: true)
    XCTAssertEqual(answers.count, 2)
    let structured = answers[1]["result"]?["structuredContent"]
    XCTAssertEqual(structured?["settled"], false)
    XCTAssertEqual(structured?["effectsInFlight"], 1)
    XCTAssertEqual(
      structured?["lines"]?.arrayValue?.map { $0["action"]?["type"] },
      ["counter.nthPrimeButtonTapped"])
    XCTAssertEqual(structured?["state"]?["isNthPrimeButtonDisabled"], true)
  }

  func testARefusedCallIsAToolErrorWithTheErrorLinesMessage() {
    let answers = serve([
      Self.initialize,
      #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"primes__counter_incrTapped","arguments":{"extra":1}}}"#,
      #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"primes__nope"}}"#,
    ])
    let message = "primes: counter.incrTapped: unknown field \"extra\""
    XCTAssertEqual(answers.count, 3, "the refusal is answered and not logged too")
    XCTAssertEqual(
      answers[1],
      [
        "jsonrpc": "2.0", "id": 2,
        "result": [
          "content": [["type": "text", "text": .string(message)]], "isError": true,
          "structuredContent": [
            "error": [
              "type": "error", "code": "invalid_action", "line": 2, "id": "mcp-1",
              "message": .string(message),
            ]
          ],
        ],
      ])
    XCTAssertEqual(
      answers[2],
      [
        "jsonrpc": "2.0", "id": 3,
        "error": ["code": -32602, "message": "tools/call: no tool named \"primes__nope\""],
      ])
  }

  func testSubscribersHearOfChangesToTheStateTheySubscribedTo() {
    let answers = serve([
      Self.initialize,
      #"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"composable-actor://other/state"}}"#,
      #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"primes__counter_incrTapped"}}"#,
      #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"other__counter_incrTapped"}}"#,
      #"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"composable-actor://other/state"}}"#,
    ])
    XCTAssertEqual(
      answers.map { $0["id"] ?? $0["method"] },
      [
        1, 2, 5, "notifications/resources/updated", 3, 4,
      ])
    XCTAssertEqual(answers[3]["params"], ["uri": "composable-actor://other/state"])
    XCTAssertEqual(
      answers[2]["result"]?["contents"]?.arrayValue?.first?["text"]?.stringValue.map {
        try? JSONParser.parse($0)
      }??["count"], 1)
  }

  func testACallWaitsForItsOwnEffectsNotItsNeighbours() {
    let lines = [
      Self.initialize,
      #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"primes__counter_incrTapped"}}"#,
      #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"primes__counter_nthPrimeButtonTapped"}}"#,
    ]
    let answers = serve(lines, dependencies: .neverAnswering)
    XCTAssertEqual(answers.map { $0["id"] }, [1, 2])
    XCTAssertEqual(answers[1]["result"]?["structuredContent"]?["settled"], true)
    XCTAssertEqual(answers[1]["result"]?["structuredContent"]?["effectsInFlight"], 1)
    // The nth prime's call answers once its effect ended, here by the instance's end.
    XCTAssertEqual(
      serve(lines).map { $0["id"] }, [1, 2, 3])
  }

  func testACancelledCallIsNeverAnswered() {
    let answers = serve(
      [
        Self.initialize,
        #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"primes__counter_nthPrimeButtonTapped"}}"#,
        #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
        #"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
      ], dependencies: .neverAnswering, endingWaits: true)
    XCTAssertEqual(answers.map { $0["id"] }, [1, 3])
  }

  func testWhatACallHoldsIsBounded() {
    var configuration = MCPConfiguration()
    configuration.maxStateBytes = 10
    configuration.maxResultLines = 1
    configuration.maxPendingCalls = 1
    let call =
      #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"primes__counter_nthPrimeButtonTapped"}}"#
    let answers = serve(
      [Self.initialize, call, call.replacingOccurrences(of: #""id":2"#, with: #""id":3"#)],
      configuration: configuration)
    XCTAssertEqual(answers.map { $0["id"] }, [1, 3, 2])
    XCTAssertEqual(answers[1]["result"]?["isError"], true)
    XCTAssertEqual(
      answers[1]["result"]?["content"]?.arrayValue?.first?["text"],
      "1 calls are waiting for their effects: wait for one to answer")
    let structured = answers[2]["result"]?["structuredContent"]
    XCTAssertEqual(structured?["lines"]?.arrayValue?.count, 1)
    XCTAssertEqual(structured?["omittedLines"], 1)
    XCTAssertNil(structured?["state"])
    XCTAssertEqual(structured?["stateSummary"]?["uri"], "composable-actor://primes/state")
    XCTAssertEqual(structured?["stateSummary"]?["members"]?.arrayValue?.first, "count")
    XCTAssertGreaterThan(structured?["stateSummary"]?["bytes"]?.intValue ?? 0, 10)
  }

  static let instanceDescription = JSONValue.string(
    "The named instance of the store to send the action to; the store's default instance "
      + "when absent.")

  static let initialize =
    #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#

  /// Hands `lines` to a server over the primes session one by one, runs the effects, and
  /// hands the server what the session wrote (its stores tracing effects, as under `mcp`), as
  /// one loop iteration would; with `endingWaits`, then ends every call's wait. Returns every
  /// message written.
  private func serve(
    _ lines: [String], dependencies: PrimesDependencies = .instant, endingWaits: Bool = false,
    configuration: MCPConfiguration = MCPConfiguration()
  ) -> [JSONValue] {
    let executor = ManualExecutor()
    StoreActor.install(executor: executor)
    let built = LockedBox<[String]>([])
    let written = StoreActor.assumeIsolated {
      var written: [UInt8] = []
      let session = Session.primes(
        recordingBuildsIn: built, dependencies: dependencies, tracesEffects: true)
      let server = MCPServer(
        session: session, name: "test", version: "1", configuration: configuration)
      var waits: [@StoreActor () -> Void] = []
      server.startTimer = { _, body in
        waits.append(body)
        return {}
      }
      for (index, line) in lines.enumerated() {
        Array(line.utf8).withUnsafeBytes { server.handleLine($0, lineNumber: index + 1) }
        server.drain { written += $0 }
      }
      executor.runUntilIdle()
      session.output.drain { server.takeSessionOutput($0) }
      server.drain { written += $0 }
      if endingWaits {
        for wait in waits { wait() }
        server.drain { written += $0 }
      }
      _ = session.cancelAllEffects(because: "test")
      return written
    }
    executor.runUntilIdle()
    return written.split(separator: UInt8(ascii: "\n")).map {
      (try? JSONParser.parse(Array($0))) ?? .null
    }
  }
}

extension PrimesDependencies {
  /// An nth prime that never comes.
  fileprivate static let neverAnswering = PrimesDependencies(
    nthPrime: NthPrimeClient(largestN: 1_000) { _ in
      try await Task.sleep(for: .seconds(3600))
      return nil
    },
    favoritePrimes: FavoritePrimesStorage(load: { [] }, save: { _ in }),
    now: { 0 })
}

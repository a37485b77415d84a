import ComposableHarness
import ComposableRuntime
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// A store only these tests host: a number that a host bumps and a scripted dependency
/// doubles, so that the scenario runner is checked against a store that is none of the four.
enum TallyStore: StoreDefinition {
  struct State: Codable, Equatable, Sendable {
    var count = 0
  }

  enum Action: ComposableAction, Equatable {
    case bump
    case doubleTapped
    case doubled(Int)
    case saveTapped
    case publishTapped
    case published(Int)
  }

  struct Feature: Reducer {
    let double: @Sendable (Int) async throws -> Int
    let publish: @Sendable (Int) async throws -> Int

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .bump:
        state.count += 1
        return .none
      case .doubleTapped:
        let count = state.count
        return .run { send in await send(.doubled(try await double(count))) }
      case .doubled(let value):
        state.count = value
        return .none
      case .saveTapped:
        return .run { _ in throw DiskFull() }
      case .publishTapped:
        let count = state.count
        return .run { send in await send(.published(try await publish(count))) }
      case .published(let total):
        state.count = total
        return .none
      }
    }
  }

  struct Options: StoreOptions {
    var step = 1
    init() {}
    static let arguments: [StoreOption<Self>] = [
      StoreOption("tally-step", \.step, help: "Unused: shows a store's option parsed.")
    ]
  }

  static let name = "tally"
  static let summary = "A number."
  static let actions: [ActionDescriptor] = [
    .init("bump", sentBy: .host, "Adds one."),
    .init("doubleTapped", sentBy: .host, "Asks the doubler."),
    .init("doubled", sentBy: .effect, "The answer."),
    .init("saveTapped", sentBy: .host, "Fails, catching nothing."),
    .init("publishTapped", sentBy: .host, "POSTs the count; the server answers a total."),
    .init("published", sentBy: .effect, "The total."),
  ]
  static let doubles = StoreDependency<Int, Int>("doubles")
  static let dependencies: [any NamedDependency] = [doubles]
  static let initialState = State()

  static func reducer(options: Options, services: Services) -> Feature {
    let http = services.http
    return Feature(
      double: services.dependency(doubles) { n in n * 2 },
      publish: { n in
        try await http.send(
          .post, to: "https://tally.example/counts", json: ["count": n], decoding: Int.self)
      })
  }
}

/// A store whose state only encodes, as a user's may: it runs, but no scenario can give it an
/// initial state.
enum EncodeOnlyStore: StoreDefinition {
  struct State: Encodable, Equatable, Sendable {
    var count = 0
  }

  enum Action: ComposableAction, Equatable {
    case bump
  }

  struct Feature: Reducer {
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.count += 1
      return .none
    }
  }

  static let name = "encodeOnly"
  static let summary = "A number that only encodes."
  static let actions: [ActionDescriptor] = [.init("bump", sentBy: .host, "Adds one.")]
  static let initialState = State()

  static func reducer(options: NoOptions, services: Services) -> Feature { Feature() }
}

struct DiskFull: Error, CustomStringConvertible {
  var description: String { "the disk is full" }
}

final class ScenarioRunTests: XCTestCase {
  private var folder = ""

  override func setUpWithError() throws {
    var template = Array("/tmp/harness-tests-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    folder = String(cString: try XCTUnwrap(made))
  }

  override func tearDown() {
    for name in ["a.jsonl"] { unlink("\(folder)/\(name)") }
    rmdir(folder)
  }

  func testAScenarioThatHoldsPasses() throws {
    let report = try run(
      """
      {"scenario":"bump, then double","store":"tally"}
      {"doubles":{"1":2}}
      {"send":"bump","state":{"count":1}}
      {"send":"doubleTapped"}
      {"receive":{"type":"doubled","value":2},"state":{"count":2}}
      """)
    XCTAssertEqual(report.passed, 1)
    XCTAssertEqual(report.failed, 0)
    XCTAssertEqual(report.lines.last, "1 passed, 0 failed")
  }

  func testAPartialReceiveMatchesByTypeOrByTheMembersItNames() throws {
    let report = try run(
      """
      {"scenario":"by type, then by value","store":"tally"}
      {"doubles":{"0":0,"1":2}}
      {"send":"doubleTapped"}
      {"receive":"doubled","match":"partial"}
      {"send":"bump","state":{"count":1}}
      {"send":"doubleTapped"}
      {"receive":{"type":"doubled","value":2},"match":"partial","state":{"count":2}}
      """)
    XCTAssertEqual(
      report.lines, ["ok    \(folder)/a.jsonl:1  by type, then by value", "1 passed, 0 failed"])
  }

  func testAReceiveGivenByItsTypeAloneMatchesTheCaseWhateverThePayload() throws {
    let report = try run(
      """
      {"scenario":"by type","store":"tally"}
      {"doubles":{"0":0}}
      {"send":"doubleTapped"}
      {"receive":"doubled"}

      {"scenario":"exact, so the payload must be absent","store":"tally"}
      {"doubles":{"0":0}}
      {"send":"doubleTapped"}
      {"receive":"doubled","match":"exact"}

      {"scenario":"another type","store":"tally"}
      {"doubles":{"0":0}}
      {"send":"doubleTapped"}
      {"receive":"bump"}
      """)
    XCTAssertEqual(report.passed, 1)
    XCTAssertEqual(report.failed, 2)
    let text = report.lines.joined(separator: "\n")
    XCTAssertTrue(
      text.contains(
        """
        /a.jsonl:9: receive doubled: received a different action (− expected, + actual)
                  {
                    … (1 unchanged)
                    action: {
                      … (1 unchanged)
                +     value: 0
                    }
                  }
        """), text)
    XCTAssertTrue(
      text.contains(
        """
        /a.jsonl:14: receive bump: received a different action (− expected, + actual)
                  {
                    … (1 unchanged)
                    action: {
                −     type: "bump"
                +     type: "doubled"
                      … (1 unchanged)
                    }
                  }
        """), text)
  }

  func testARequestsMethodAndBodyAreMatchedAndChecked() throws {
    let report = try run(
      """
      {"scenario":"published","store":"tally","initialState":{"count":3}}
      {"http":{"method":"GET","path":"/counts","body":1}}
      {"http":{"method":"POST","path":"/counts","requestBody":{"count":2},"body":20}}
      {"http":{"method":"POST","path":"/counts","requestBody":{"count":3},"body":10}}
      {"send":"publishTapped"}
      {"receive":"published","state":{"count":10}}
      {"expect":{"requests":[{"request":"POST /counts","body":{"count":3}}]}}

      {"scenario":"another body","store":"tally","initialState":{"count":3}}
      {"http":{"method":"POST","path":"/counts","body":10}}
      {"send":"publishTapped"}
      {"receive":"published","state":{"count":10}}
      {"expect":{"requests":[{"request":"POST /counts","body":{"count":4}}]}}

      {"scenario":"only a GET answer","store":"tally"}
      {"http":{"path":"/counts","body":1}}
      {"send":"publishTapped"}

      {"scenario":"an answer for another body","store":"tally"}
      {"http":{"method":"POST","path":"/counts","requestBody":{"count":1},"body":1}}
      {"send":"publishTapped"}
      """)
    XCTAssertEqual(report.passed, 1)
    XCTAssertEqual(report.failed, 3)
    let text = report.lines.joined(separator: "\n")
    XCTAssertTrue(
      text.contains(
        """
        /a.jsonl:13: expect: the dependencies did not get what was expected (− expected, + actual)
                  {
                    requests: [
                      [0]: {
                        … (1 unchanged)
                        body: {
                −         count: 4
                +         count: 3
                        }
                      }
                    ]
                  }
        """), text)
    XCTAssertTrue(
      text.contains("unexpected request POST /counts: no canned response matches"), text)
    XCTAssertTrue(
      text.contains(
        "unexpected request POST /counts with body {\"count\":0}: the canned answers for it "
          + "expect another body"), text)
  }

  func testAPartialReceiveThatDiffersShowsOnlyWhatItNamed() throws {
    let report = try run(
      """
      {"scenario":"wrong value","store":"tally"}
      {"doubles":{"0":7}}
      {"send":"doubleTapped"}
      {"receive":{"type":"doubled","value":3},"match":"partial"}
      """)
    XCTAssertEqual(report.failed, 1)
    let text = report.lines.joined(separator: "\n")
    XCTAssertTrue(
      text.contains(
        """
        /a.jsonl:4: receive doubled: received a different action (− expected, + actual)
                  {
                    … (1 unchanged)
                    action: {
                      … (1 unchanged)
                −     value: 3
                +     value: 7
                    }
                  }
        """), text)
  }

  func testADelayedAnswerWaitsOnTheScenariosClock() throws {
    let report = try run(
      """
      {"scenario":"delayed","store":"tally"}
      {"doubles":{"0":4},"delay":1000}
      {"send":"doubleTapped"}
      {"advance":999}
      {"advance":1}
      {"receive":{"type":"doubled","value":4},"state":{"count":4}}
      """)
    XCTAssertEqual(report.lines.last, "1 passed, 0 failed", report.lines.joined(separator: "\n"))
    let early = try run(
      """
      {"scenario":"too early","store":"tally"}
      {"doubles":{"0":4},"delay":1000}
      {"send":"doubleTapped"}
      {"advance":999}
      {"receive":{"type":"doubled","value":4},"state":{"count":4}}
      """)
    XCTAssertEqual(early.failed, 1)
    let text = early.lines.joined(separator: "\n")
    XCTAssertTrue(text.contains("/a.jsonl:5: receive doubled: expected to receive doubled"), text)
  }

  func testSkippingReceivedActionsDropsThoseNotAssertedYet() throws {
    let passing = try run(
      """
      {"scenario":"skip","store":"tally"}
      {"doubles":{"0":5}}
      {"send":"doubleTapped"}
      {"skipReceivedActions":true}
      {"send":"bump","state":{"count":6}}
      """)
    XCTAssertEqual(passing.lines.last, "1 passed, 0 failed")
    let failing = try run(
      """
      {"scenario":"no skip","store":"tally"}
      {"doubles":{"0":5}}
      {"send":"doubleTapped"}
      {"send":"bump","state":{"count":6}}
      """)
    XCTAssertEqual(failing.failed, 1)
    let text = failing.lines.joined(separator: "\n")
    XCTAssertTrue(
      text.contains("/a.jsonl:4: send bump: 1 received action(s) must be asserted"), text)
  }

  func testAStepOfItsOwnExhaustivityChecksOnlyWhatItNames() throws {
    let report = try run(
      """
      {"scenario":"per step","store":"tally"}
      {"doubles":{"0":5}}
      {"send":"doubleTapped"}
      {"send":"bump","exhaustive":false,"state":{}}
      {"send":"bump","state":{"count":7}}
      """)
    XCTAssertEqual(report.lines.last, "1 passed, 0 failed", report.lines.joined(separator: "\n"))
  }

  func testAScenarioStartsFromTheInitialStateItGives() throws {
    let report = try run(
      """
      {"scenario":"from 40","store":"tally","initialState":{"count":40}}
      {"send":"bump","state":{"count":41}}
      """)
    XCTAssertEqual(report.lines.last, "1 passed, 0 failed", report.lines.joined(separator: "\n"))
    let wrong = try run(
      """
      {"scenario":"not a count","store":"tally","initialState":{"count":true}}
      {"send":"bump"}
      """)
    XCTAssertTrue(
      wrong.lines.joined(separator: "\n").contains(
        #"a.jsonl:1: set-up: "initialState": the tally store's state does not decode: /count: "#
          + "expected an integer, got true"), wrong.lines.joined(separator: "\n"))
  }

  func testAStateThatOnlyEncodesCannotBeAnInitialState() {
    XCTAssertThrowsError(try EncodeOnlyStore.decodeState(["count": 1])) { error in
      XCTAssertEqual(
        (error as? StateDecodingError)?.message,
        "the encodeOnly store's state (State) is not Decodable: conform it to Decodable to start "
          + "a scenario from a state")
    }
  }

  func testAWrongStateFailsAndSaysWhere() throws {
    let report = try run(
      """
      {"scenario":"wrong count","store":"tally"}
      {"send":"bump","state":{"count":2}}
      """)
    XCTAssertEqual(report.failed, 1)
    let text = report.lines.joined(separator: "\n")
    XCTAssertTrue(
      text.contains(
        """
        /a.jsonl:2: send bump: the state differs from the expectation (− expected, + actual)
                  {
                −   count: 2
                +   count: 1
                  }
        """), text)
  }

  /// Steps are parsed again as they run, from the file's text: each scenario runs its own,
  /// past comments and empty lines, and a failure names the step's line.
  func testEachScenarioRunsItsOwnStepsAndAFailureNamesItsLine() throws {
    let report = try run(
      """
      # two scenarios
      {"scenario":"holds","store":"tally"}

      {"send":"bump","state":{"count":1}}
      # between steps
      {"send":"bump","state":{"count":2}}
      {"scenario":"fails","store":"tally"}
      {"send":"bump","state":{"count":1}}

      {"send":"bump","state":{"count":3}}
      """)
    XCTAssertEqual(report.failed, 1)
    let text = report.lines.joined(separator: "\n")
    XCTAssertTrue(text.contains("/a.jsonl:10: send bump: the state differs"), text)
    XCTAssertFalse(text.contains("a.jsonl:6:"), text)
  }

  func testAnUnansweredScriptedDependencyFailsTheScenario() throws {
    let report = try run(
      """
      {"scenario":"no answer","store":"tally"}
      {"send":"doubleTapped"}
      {"receive":{"type":"doubled","value":-1},"state":{"count":-1}}
      """)
    XCTAssertEqual(report.failed, 1)
    let text = report.lines.joined(separator: "\n")
    XCTAssertTrue(text.contains("unexpected doubles request for 0"), text)
  }

  func testAnEffectErrorNothingCatchesFailsTheScenarioAndNamesTheAction() throws {
    let report = try run(
      """
      {"scenario":"a failing save","store":"tally"}
      {"send":"saveTapped"}
      """)
    XCTAssertEqual(report.failed, 1)
    let text = report.lines.joined(separator: "\n")
    XCTAssertTrue(
      text.contains(
        "/a.jsonl:2: send saveTapped: tally: an effect of saveTapped failed: the disk is full"),
      text)
  }

  func testAStepNoStoreScriptsIsRefused() throws {
    let report = try run(
      """
      {"scenario":"typo","store":"tally"}
      {"doublez":{"1":2}}
      """)
    XCTAssertEqual(report.failed, 1)
    let text = report.lines.joined(separator: "\n")
    XCTAssertTrue(text.contains("(unreadable)"), text)
    XCTAssertTrue(text.contains("doubles"), "the known step names are listed: \(text)")
  }

  func testTheStoresOptionsReachTheScenario() throws {
    let report = try run(
      """
      {"scenario":"bad option","store":"tally","arguments":["--tally-step","x"]}
      {"send":"bump"}
      """)
    XCTAssertEqual(report.failed, 1)
    let text = report.lines.joined(separator: "\n")
    XCTAssertTrue(
      text.contains("--tally-step: \\\"x\\\" is not a valid n")
        || text.contains("--tally-step: \"x\" is not a valid n"), text)
  }

  // MARK: Running

  /// Runs one scenario file through the harness on a loop of its own, as `test` does.
  private func run(_ scenario: String) throws -> TestOutcome {
    let path = "\(folder)/a.jsonl"
    let file = try XCTUnwrap(fopen(path, "w"))
    fputs(scenario + "\n", file)
    fclose(file)
    return try runTests([path], harness: TallyStore.harness)
  }
}

extension TallyStore {
  /// The tally store with a parser of the little a scenario's or a recording's arguments need
  /// here: the store's options, the data folder, and the virtual clock.
  static var harness: Harness { .forTests(StoreCatalog([TallyStore.self])) }
}

extension Harness {
  /// A harness of `catalog`'s stores, with a parser of the little a scenario's or a
  /// recording's arguments need in these tests: the stores' options, the data folder, and the
  /// virtual clock.
  static func forTests(_ catalog: StoreCatalog) -> Harness {
    Harness(stores: catalog, name: "harness-tests") { arguments throws(ArgumentsError) in
      let stores = removingOptions(["--clock", "--data-dir"], from: arguments)
      do {
        var configuration = RunConfiguration(
          name: "harness-tests", version: "test", storeOptions: try catalog.parseOptions(stores))
        configuration.clock = .virtual
        if let index = arguments.firstIndex(of: "--data-dir") {
          configuration.dataDirectory = arguments[index + 1]
        }
        return configuration
      } catch {
        throw ArgumentsError("\(error)")
      }
    }
  }
}

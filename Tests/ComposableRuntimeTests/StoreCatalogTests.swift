import ComposableRuntime
import XCTest

/// Two stores with options, one name shared, to pin how the catalog reads `run`'s arguments.
private enum Greeter: StoreDefinition {
  struct Options: StoreOptions, Equatable {
    var greeting = "hello"
    var repeats = 1
    var apiURL = "http://127.0.0.1:1"
    init() {}
    static let arguments: [StoreOption<Self>] = [
      StoreOption("greeting", \.greeting, help: "What to say."),
      StoreOption("repeats", \.repeats, help: "How often.") {
        $0 >= 1 ? nil : "must be at least 1"
      },
      StoreOption("api-url", \.apiURL, help: "Where the API is."),
    ]
  }

  struct Feature: Reducer {
    func reduce(into state: inout Int, action: Action) -> Effect<Action> { .none }
  }

  enum Action: ComposableAction { case noop }

  static let name = "greeter"
  static let summary = "Says hello."
  static let actions: [ActionDescriptor] = [.init("noop", sentBy: .host, "Nothing.")]
  static let initialState = 0
  static func reducer(options: Options, services: Services) -> Feature { Feature() }
}

private enum Fetcher: StoreDefinition {
  struct Options: StoreOptions, Equatable {
    var apiURL = "http://127.0.0.1:2"
    var timeout: Double? = nil
    init() {}
    static let arguments: [StoreOption<Self>] = [
      StoreOption("api-url", \.apiURL, help: "Where the API is."),
      StoreOption("fetch-timeout", \.timeout, help: "Seconds.", valueName: "seconds"),
    ]
  }

  typealias Feature = Greeter.Feature
  static let name = "fetcher"
  static let summary = "Fetches."
  static let actions = Greeter.actions
  static let initialState = 0
  static func reducer(options: Options, services: Services) -> Feature { Feature() }
}

final class StoreCatalogTests: XCTestCase {
  private let catalog = StoreCatalog([Greeter.self, Fetcher.self])

  func testNoArgumentsGiveEveryStoreItsDefaults() throws {
    let values = try catalog.parseOptions([])
    XCTAssertEqual(values.options(of: Greeter.self), Greeter.Options())
    XCTAssertEqual(values.options(of: Fetcher.self), Fetcher.Options())
  }

  func testBothSpellingsSetTheirStoresOption() throws {
    let values = try catalog.parseOptions([
      "--greeting", "hi", "--repeats=3", "--fetch-timeout", "2.5",
    ])
    var greeter = Greeter.Options()
    greeter.greeting = "hi"
    greeter.repeats = 3
    XCTAssertEqual(values.options(of: Greeter.self), greeter)
    var fetcher = Fetcher.Options()
    fetcher.timeout = 2.5
    XCTAssertEqual(values.options(of: Fetcher.self), fetcher)
  }

  func testANameTwoStoresDeclareSetsBoth() throws {
    let values = try catalog.parseOptions(["--api-url", "http://127.0.0.1:9"])
    XCTAssertEqual(values.options(of: Greeter.self)?.apiURL, "http://127.0.0.1:9")
    XCTAssertEqual(values.options(of: Fetcher.self)?.apiURL, "http://127.0.0.1:9")
  }

  func testBadArgumentsAreRefusedWithWhy() {
    func refusal(_ arguments: [String]) -> String? {
      do {
        _ = try catalog.parseOptions(arguments)
        return nil
      } catch {
        return error.description
      }
    }
    XCTAssertEqual(refusal(["--greting", "hi"]), "unknown option '--greting'")
    XCTAssertEqual(refusal(["--greeting"]), "missing value for '--greeting'")
    XCTAssertEqual(refusal(["hi"]), "unexpected argument 'hi'")
    XCTAssertEqual(refusal(["--repeats", "two"]), "--repeats: \"two\" is not a valid n")
    XCTAssertEqual(refusal(["--repeats", "0"]), "--repeats must be at least 1")
    XCTAssertEqual(
      refusal(["--fetch-timeout", "inf"]), "--fetch-timeout: \"inf\" is not a valid seconds")
  }

  func testTheHelpListsEachStoresOptionsWithDefaults() {
    let help = catalog.options
    XCTAssertEqual(help.map(\.store), ["greeter", "fetcher"])
    XCTAssertEqual(help[0].options.map(\.name), ["greeting", "repeats", "api-url"])
    XCTAssertEqual(help[0].options[1].defaultValue, "1")
    XCTAssertEqual(help[1].options[1].valueName, "seconds")
    XCTAssertNil(help[1].options[1].defaultValue, "an optional with no value shows no default")
  }

  func testTheDescriptorsFollowTheDefinitions() {
    XCTAssertEqual(catalog.names, ["greeter", "fetcher"])
    XCTAssertEqual(catalog.descriptors.map(\.summary), ["Says hello.", "Fetches."])
  }
}

/// A description that drifted from its action type in every way it can.
private enum Drifted: StoreDefinition {
  enum Action: ComposableAction {
    case shown
    case renamed(count: Int)
    case undescribed(String)
  }

  struct Feature: Reducer {
    func reduce(into state: inout Int, action: Action) -> Effect<Action> { .none }
  }

  static let name = "drifted"
  static let summary = "Drifted."
  static let actions: [ActionDescriptor] = [
    .init("shown", sentBy: .host, "Matches."),
    .init("renamed", sentBy: .host, "Described; its payload is read from the type."),
    .init("removed", sentBy: .host, "No such case any more."),
  ]
  static let initialState = 0
  static func reducer(options: NoOptions, services: Services) -> Feature { Feature() }
}

final class ActionDescriptionTests: XCTestCase {
  func testEveryWayADescriptionDriftsIsNamed() {
    XCTAssertEqual(
      Drifted.actionDescriptionProblems,
      [
        "drifted: the case undescribed(value) is not described",
        "drifted: removed is described but is no case of the action type",
      ])
  }

  /// What a store cannot be hosted with: the cases the list leaves out or names wrongly, not
  /// the schemas `describe` reads.
  func testTheActionListProblemsAreTheCasesThatDisagree() {
    XCTAssertEqual(
      Drifted.actionListProblems,
      [
        "drifted: the case undescribed is not described",
        "drifted: removed is described but is no case of the action type",
      ])
    XCTAssertEqual(Greeter.actionListProblems, [])
  }

  /// `test` and `describe` refuse to start with this message; each store is checked once per
  /// process.
  func testACatalogNamesTheStoresWhoseListsDisagree() {
    let catalog = StoreCatalog([Greeter.self, Drifted.self])
    XCTAssertEqual(
      catalog.actionListDisagreement(),
      """
      a store's actions disagree with its action type; describe every case in the \
      definition's `actions`, with who sends it:
      drifted: the case undescribed is not described
      drifted: removed is described but is no case of the action type
      """)
    XCTAssertNil(catalog.actionListDisagreement(), "checked once")
  }

  func testADescriptionThatMatchesHasNoProblems() {
    XCTAssertEqual(Greeter.actionDescriptionProblems, [])
  }

  /// `describe` lists every case of the type, payloads read from it: a case not described is
  /// there too, as sent by effects, with no summary.
  func testTheDescriptorIsDerivedFromTheTypes() {
    let actions = Drifted.descriptor.actions
    XCTAssertEqual(actions.map(\.type), ["shown", "renamed", "undescribed"])
    XCTAssertEqual(actions.map(\.sentBy), [.host, .host, .effect])
    XCTAssertEqual(actions[1].payload, [.init("count", ["type": "integer"])])
    XCTAssertEqual(actions[2].payload, [.init("value", ["type": "string"])])
    XCTAssertEqual(actions[2].summary, "")
    XCTAssertEqual(Drifted.descriptor.stateSchema, ["type": "integer"])
  }
}

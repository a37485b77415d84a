import ComposableCore
import ComposableTestSupport
import XCTest

/// TCA's `ForEachReducerTests`, as they apply to this core: element actions, their effects,
/// cancellation on removal, element-scoped cancellation ids and a missing element.
final class ForEachReducerTests: XCTestCase {
  struct Row: Reducer {
    struct State: Equatable, Sendable, Identifiable {
      let id: Int
      var value: String
      var ticks = 0
    }
    enum Action: Equatable, Sendable {
      case setValue(String)
      case startTimer
      case stopTimer
      case tick
      case search(String)
      case ping
    }
    enum CancelID { case timer, search, ping }
    let clock: VirtualClock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .setValue(let value):
        state.value = value
        return value.isEmpty ? .send(.setValue("Empty")) : .none
      case .startTimer:
        return .run { send in
          for await _ in clock.timer(interval: .seconds(1)) { await send(.tick) }
        }
        .cancellable(id: CancelID.timer, cancelInFlight: true)
      case .stopTimer:
        return .cancel(id: CancelID.timer)
      case .tick:
        state.ticks += 1
        return .none
      case .search(let query):
        return .send(.setValue(query))
          .debounce(id: CancelID.search, for: .milliseconds(300), clock: clock)
      case .ping:
        return .send(.tick)
          .throttle(id: CancelID.ping, for: .seconds(1), clock: clock, latest: true)
      }
    }
  }

  struct Elements: Reducer {
    struct State: Equatable, Sendable {
      var rows: IdentifiedArrayOf<Row.State> = []
      var lastValueSeen: String?
    }
    enum Action: Equatable, Sendable {
      case rows(IdentifiedActionOf<Row>)
      case remove(id: Int)
      case reverse
      case keepOnly(id: Int)

      enum Cases {
        static let rows = CasePath<Action, IdentifiedActionOf<Row>>(embed: Action.rows) {
          guard case .rows(let action) = $0 else { return nil }
          return action
        }
      }
    }
    let clock: VirtualClock

    var body: some Reducer<State, Action> {
      Reduce { state, action in
        switch action {
        case .rows(.element(let id, action: .setValue)):
          state.lastValueSeen = state.rows[id: id]?.value
          return .none
        case .rows:
          return .none
        case .remove(let id):
          state.rows.remove(id: id)
          return .none
        case .reverse:
          state.rows = IdentifiedArray(uniqueElements: state.rows.reversed())
          return .none
        case .keepOnly(let id):
          state.rows = IdentifiedArray(uniqueElements: state.rows.filter { $0.id == id })
          return .none
        }
      }
      .forEach(\.rows, action: Action.Cases.rows) { Row(clock: clock) }
    }
  }

  private func makeStore(rows: [Int] = [1, 2, 3]) -> TestStore<Elements.State, Elements.Action> {
    let clock = VirtualClock()
    return TestStore(
      initialState: Elements.State(
        rows: IdentifiedArray(uniqueElements: rows.map { Row.State(id: $0, value: "Blob \($0)") })),
      reducer: Elements(clock: clock), clock: clock)
  }

  func testAnElementActionReducesThatElementBeforeTheParent() {
    let store = makeStore()
    store.send(.rows(.element(id: 1, action: .setValue("Blob Esq.")))) {
      $0.rows[id: 1]?.value = "Blob Esq."
      $0.lastValueSeen = "Blob Esq."
    }
    store.send(.rows(.element(id: 2, action: .setValue("")))) {
      $0.rows[id: 2]?.value = ""
      $0.lastValueSeen = ""
    }
    store.receive(.rows(.element(id: 2, action: .setValue("Empty")))) {
      $0.rows[id: 2]?.value = "Empty"
      $0.lastValueSeen = "Empty"
    }
    store.finish()
  }

  func testAnActionForNoElementLeavesTheElementsAlone() {
    let store = makeStore()
    store.send(.reverse) {
      $0.rows = IdentifiedArray(uniqueElements: $0.rows.reversed())
    }
    store.finish()
  }

  func testAnElementsEffectsSendTheirActionsToThatElement() {
    let store = makeStore()
    store.send(.rows(.element(id: 2, action: .startTimer)))
    store.advance(by: .seconds(1))
    store.receive(.rows(.element(id: 2, action: .tick))) { $0.rows[id: 2]?.ticks = 1 }
    store.send(.rows(.element(id: 2, action: .stopTimer)))
    store.finish()
  }

  func testRemovingAnElementCancelsItsEffects() {
    let store = makeStore()
    store.send(.rows(.element(id: 1, action: .startTimer)))
    store.send(.rows(.element(id: 2, action: .startTimer)))
    store.send(.remove(id: 1)) { $0.rows.remove(id: 1) }
    XCTAssertEqual(store.effectsInFlight, 1)
    store.advance(by: .seconds(1))
    store.receive(.rows(.element(id: 2, action: .tick))) { $0.rows[id: 2]?.ticks = 1 }
    store.send(.remove(id: 2)) { $0.rows.remove(id: 2) }
    store.advance(by: .seconds(5))
    store.finish()
  }

  /// A new collection has no journal to tell what it lost: the elements not in it any more are
  /// found among those running effects.
  func testReplacingTheCollectionCancelsTheEffectsOfTheElementsItLost() {
    let store = makeStore()
    store.send(.rows(.element(id: 1, action: .startTimer)))
    store.send(.rows(.element(id: 2, action: .startTimer)))
    store.send(.keepOnly(id: 2)) { $0.rows = [$0.rows[id: 2]!] }
    XCTAssertEqual(store.effectsInFlight, 1)
    store.advance(by: .seconds(1))
    store.receive(.rows(.element(id: 2, action: .tick))) { $0.rows[id: 2]?.ticks = 1 }
    store.send(.rows(.element(id: 2, action: .stopTimer)))
    store.finish()
  }

  func testReorderingElementsCancelsNothing() {
    let store = makeStore()
    store.send(.rows(.element(id: 1, action: .startTimer)))
    store.send(.reverse) { $0.rows = IdentifiedArray(uniqueElements: $0.rows.reversed()) }
    store.advance(by: .seconds(1))
    store.receive(.rows(.element(id: 1, action: .tick))) { $0.rows[id: 1]?.ticks = 1 }
    store.send(.rows(.element(id: 1, action: .stopTimer)))
    store.finish()
  }

  func testCancellationIDsAreScopedToTheirElement() {
    let store = makeStore()
    store.send(.rows(.element(id: 1, action: .startTimer)))
    // The same id with cancelInFlight in another element replaces nothing of the first's.
    store.send(.rows(.element(id: 2, action: .startTimer)))
    store.advance(by: .seconds(1))
    store.receive(.rows(.element(id: 1, action: .tick))) { $0.rows[id: 1]?.ticks = 1 }
    store.receive(.rows(.element(id: 2, action: .tick))) { $0.rows[id: 2]?.ticks = 1 }
    // `.cancel(id: CancelID.timer)` in the first row stops its own timer only.
    store.send(.rows(.element(id: 1, action: .stopTimer)))
    store.advance(by: .seconds(1))
    store.receive(.rows(.element(id: 2, action: .tick))) { $0.rows[id: 2]?.ticks = 2 }
    store.send(.rows(.element(id: 2, action: .stopTimer)))
    store.finish()
  }

  func testADebounceInOneElementDoesNotRestartAnothers() {
    let store = makeStore()
    store.send(.rows(.element(id: 1, action: .search("a"))))
    store.advance(by: .milliseconds(200))
    store.send(.rows(.element(id: 2, action: .search("b"))))
    store.send(.rows(.element(id: 1, action: .search("ab"))))
    store.advance(by: .milliseconds(300))
    store.receive(.rows(.element(id: 2, action: .setValue("b")))) {
      $0.rows[id: 2]?.value = "b"
      $0.lastValueSeen = "b"
    }
    store.receive(.rows(.element(id: 1, action: .setValue("ab")))) {
      $0.rows[id: 1]?.value = "ab"
      $0.lastValueSeen = "ab"
    }
    store.finish()
  }

  func testAThrottleInOneElementDoesNotHoldAnothers() {
    let store = makeStore()
    store.send(.rows(.element(id: 1, action: .ping)))
    store.receive(.rows(.element(id: 1, action: .tick))) { $0.rows[id: 1]?.ticks = 1 }
    // Within the first row's interval, the second row's first ping still passes at once.
    store.send(.rows(.element(id: 2, action: .ping)))
    store.receive(.rows(.element(id: 2, action: .tick))) { $0.rows[id: 2]?.ticks = 1 }
    store.send(.rows(.element(id: 1, action: .ping)))
    store.advance(by: .seconds(1))
    store.receive(.rows(.element(id: 1, action: .tick))) { $0.rows[id: 1]?.ticks = 2 }
    store.finish()
  }

  func testAnElementsCancelIDNamesItsElementInEffectEvents() {
    let store = makeStore()
    store.send(.rows(.element(id: 3, action: .startTimer)))
    store.send(.rows(.element(id: 3, action: .stopTimer)))
    let ids = store.effectEvents.compactMap { $0.cancelID?.description }
    XCTAssertTrue(ids.contains("timer of element 3"), "\(ids)")
    store.finish()
  }

  func testAnActionForAMissingElementChangesNothingAndFailsTheStep() {
    let store = makeStore()
    var failures: [String] = []
    store.reportFailure = { message, _, _ in failures.append(message) }
    // The parent still reduces the action, as in TCA; it finds no row either, so nothing
    // changes.
    store.send(.rows(.element(id: 99, action: .setValue("Ghost"))))
    XCTAssertEqual(failures.count, 1)
    XCTAssertTrue(
      failures.first?.hasSuffix(
        "reported an issue: no element has id 99; the action changed nothing") == true,
      "\(failures)")
    store.finish()
  }

  func testTheStoreToldOfAMissingElementOnceWithTheActionThatAskedForIt() {
    let clock = VirtualClock()
    StoreActor.install(executor: ManualExecutor())
    StoreActor.assumeIsolated {
      let store = Store(initialState: Elements.State(), reducer: Elements(clock: clock))
      var issues: [(ReducerIssue, Elements.Action)] = []
      store.didReportIssue = { issue, reduced in issues.append((issue, reduced.action)) }
      store.send(.rows(.element(id: 7, action: .startTimer)))
      XCTAssertEqual(issues.map(\.0.kind), [.unknownElement])
      XCTAssertEqual(issues.map(\.1), [.rows(.element(id: 7, action: .startTimer))])
      XCTAssertEqual(store.effectsInFlight, 0)
    }
  }

  func testTheCasePathToOneElementEmbedsAndExtractsItsActions() {
    let second = Elements.Action.Cases.rows[id: 2]
    XCTAssertEqual(second.embed(.tick), .rows(.element(id: 2, action: .tick)))
    XCTAssertEqual(second.extract(.rows(.element(id: 2, action: .tick))), .tick)
    XCTAssertNil(second.extract(.rows(.element(id: 3, action: .tick))))
    XCTAssertNil(second.extract(.reverse))
  }

  /// Lists of rows: a row's effects are scoped by its list and by itself.
  struct Board: Reducer {
    struct ListState: Equatable, Sendable, Identifiable {
      let id: Int
      var rows: IdentifiedArrayOf<Row.State>
    }
    enum ListAction: Equatable, Sendable {
      case rows(IdentifiedActionOf<Row>)
      case remove(id: Int)

      static let rowsPath = CasePath<ListAction, IdentifiedActionOf<Row>>(embed: ListAction.rows) {
        guard case .rows(let action) = $0 else { return nil }
        return action
      }
    }
    struct State: Equatable, Sendable {
      var lists: IdentifiedArray<ListState>
    }
    enum Action: Equatable, Sendable {
      case lists(IdentifiedAction<Int, ListAction>)

      static let listsPath = CasePath<Action, IdentifiedAction<Int, ListAction>>(
        embed: Action.lists
      ) {
        guard case .lists(let action) = $0 else { return nil }
        return action
      }
    }
    let clock: VirtualClock

    var body: some Reducer<State, Action> {
      EmptyReducer().forEach(\.lists, action: Action.listsPath) {
        Reduce<ListState, ListAction> { state, action in
          if case .remove(let id) = action { state.rows.remove(id: id) }
          return .none
        }
        .forEach(\.rows, action: ListAction.rowsPath) { Row(clock: clock) }
      }
    }
  }

  func testANestedElementsEffectsAreItsOwnAndEndWithIt() {
    let clock = VirtualClock()
    let row = { (id: Int) in Row.State(id: id, value: "") }
    let store = TestStore(
      initialState: Board.State(
        lists: [
          Board.ListState(id: 1, rows: [row(1), row(2)]), Board.ListState(id: 2, rows: [row(1)]),
        ]),
      reducer: Board(clock: clock), clock: clock)
    let start = { (list: Int, row: Int) in
      store.send(.lists(.element(id: list, action: .rows(.element(id: row, action: .startTimer)))))
    }
    start(1, 1)
    start(1, 2)
    start(2, 1)
    store.send(.lists(.element(id: 1, action: .remove(id: 1)))) {
      $0.lists[id: 1]?.rows.remove(id: 1)
    }
    XCTAssertEqual(store.effectsInFlight, 2)
    store.advance(by: .seconds(1))
    store.receive(.lists(.element(id: 1, action: .rows(.element(id: 2, action: .tick))))) {
      $0.lists[id: 1]?.rows[id: 2]?.ticks = 1
    }
    store.receive(.lists(.element(id: 2, action: .rows(.element(id: 1, action: .tick))))) {
      $0.lists[id: 2]?.rows[id: 1]?.ticks = 1
    }
    store.send(.lists(.element(id: 1, action: .rows(.element(id: 2, action: .stopTimer)))))
    store.send(.lists(.element(id: 2, action: .rows(.element(id: 1, action: .stopTimer)))))
    store.finish()
  }

  /// Rows behind a computed property, whose key path is no offset in the state, or stored
  /// below another member, whose key path is one: `forEach` reads them in place only then.
  struct RowsAtAPath: Reducer {
    struct State: Equatable, Sendable {
      var title = "rows"
      var inner = Inner()
      var rows: IdentifiedArrayOf<Row.State> {
        get { inner.rows }
        set { inner.rows = newValue }
      }
    }
    struct Inner: Equatable, Sendable {
      var count = 0
      var rows: IdentifiedArrayOf<Row.State> = [
        Row.State(id: 1, value: ""), Row.State(id: 2, value: ""),
      ]
    }
    /// A board's list's actions: its rows' and the removal of one.
    typealias Action = Board.ListAction
    let path: WritableKeyPath<State, IdentifiedArrayOf<Row.State>> & Sendable
    let clock: VirtualClock

    var body: some Reducer<State, Action> {
      Reduce { state, action in
        if case .remove(let id) = action { state[keyPath: path].remove(id: id) }
        return .none
      }
      .forEach(path, action: Action.rowsPath) { Row(clock: clock) }
    }
  }

  func testElementsBehindAComputedOrANestedPathAreReducedAndTheirRemovalCancels() {
    XCTAssertNil(MemoryLayout<RowsAtAPath.State>.offset(of: \.rows))
    XCTAssertNotNil(MemoryLayout<RowsAtAPath.State>.offset(of: \.inner.rows))
    for path: WritableKeyPath<RowsAtAPath.State, IdentifiedArrayOf<Row.State>> & Sendable in [
      \.rows, \.inner.rows,
    ] {
      let clock = VirtualClock()
      let store = TestStore(
        initialState: RowsAtAPath.State(), reducer: RowsAtAPath(path: path, clock: clock),
        clock: clock)
      store.send(.rows(.element(id: 2, action: .setValue("Blob")))) {
        $0.rows[id: 2]?.value = "Blob"
      }
      store.send(.rows(.element(id: 1, action: .startTimer)))
      store.send(.rows(.element(id: 2, action: .startTimer)))
      store.advance(by: .seconds(1))
      store.receive(.rows(.element(id: 1, action: .tick))) { $0.rows[id: 1]?.ticks = 1 }
      store.receive(.rows(.element(id: 2, action: .tick))) { $0.rows[id: 2]?.ticks = 1 }
      store.send(.remove(id: 1)) { $0.rows.remove(id: 1) }
      XCTAssertEqual(store.effectsInFlight, 1)
      store.send(.remove(id: 2)) { $0.rows.remove(id: 2) }
      store.advance(by: .seconds(5))
      store.finish()
    }
  }
}

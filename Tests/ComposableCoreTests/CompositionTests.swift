import ComposableCore
import ComposableTestSupport
import XCTest

final class CompositionTests: XCTestCase {
  struct Child: Reducer {
    struct State: Equatable, Sendable { var count = 0 }
    enum Action: Equatable, Sendable {
      case increment
      case incrementLater
    }
    let clock: VirtualClock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment:
        state.count += 1
        return .none
      case .incrementLater:
        return .run { send in
          try await clock.sleep(for: .seconds(1))
          await send(.increment)
        }
      }
    }
  }

  struct Parent: Reducer {
    struct State: Equatable, Sendable {
      var child = Child.State()
      var optionalChild: Child.State?
      var parentSawCount: Int?
      /// The same child behind a computed property, whose key path is no offset in the state.
      var computedOptionalChild: Child.State? {
        get { optionalChild }
        set { optionalChild = newValue }
      }
    }
    enum Action: Equatable, Sendable {
      case child(Child.Action)
      case optionalChild(Child.Action)
      case present
      case dismiss

      enum Cases {
        static let child = CasePath<Action, Child.Action>(embed: Action.child) {
          guard case .child(let action) = $0 else { return nil }
          return action
        }
        static let optionalChild = CasePath<Action, Child.Action>(embed: Action.optionalChild) {
          guard case .optionalChild(let action) = $0 else { return nil }
          return action
        }
      }
    }
    let clock: VirtualClock
    var optionalChildPath: WritableKeyPath<State, Child.State?> & Sendable = \.optionalChild

    var body: some Reducer<State, Action> {
      Scope(state: \.child, action: Action.Cases.child) { Child(clock: clock) }
      Reduce { state, action in
        switch action {
        case .child:
          state.parentSawCount = state.child.count
          return .none
        case .optionalChild:
          state.parentSawCount = state.optionalChild?.count
          return .none
        case .present:
          state.optionalChild = Child.State()
          return .none
        case .dismiss:
          state.optionalChild = nil
          return .none
        }
      }
      .ifLet(optionalChildPath, action: Action.Cases.optionalChild) { Child(clock: clock) }
    }
  }

  func testScopeRunsTheChildOnItsStateAndMapsItsEffects() {
    let clock = VirtualClock()
    let store = TestStore(initialState: Parent.State(), reducer: Parent(clock: clock), clock: clock)
    store.send(.child(.increment)) {
      $0.child.count = 1
      $0.parentSawCount = 1
    }
    store.send(.child(.incrementLater))
    store.advance(by: .seconds(1))
    store.receive(.child(.increment)) {
      $0.child.count = 2
      $0.parentSawCount = 2
    }
    store.finish()
  }

  func testIfLetIgnoresChildActionsWhileAbsent() {
    let clock = VirtualClock()
    let store = TestStore(initialState: Parent.State(), reducer: Parent(clock: clock), clock: clock)
    store.send(.optionalChild(.increment))
    store.send(.present) { $0.optionalChild = Child.State() }
    store.send(.optionalChild(.increment)) {
      $0.optionalChild?.count = 1
      $0.parentSawCount = 1
    }
    store.finish()
  }

  func testIfLetCancelsChildEffectsWhenDismissed() {
    let clock = VirtualClock()
    let store = TestStore(initialState: Parent.State(), reducer: Parent(clock: clock), clock: clock)
    store.send(.present) { $0.optionalChild = Child.State() }
    store.send(.optionalChild(.incrementLater)) { $0.parentSawCount = 0 }
    store.send(.dismiss) { $0.optionalChild = nil }
    store.advance(by: .seconds(2))
    store.finish()
  }

  func testIfLetThroughAComputedPathRunsAndCancelsTheChildAlike() {
    XCTAssertNil(MemoryLayout<Parent.State>.offset(of: \.computedOptionalChild))
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Parent.State(),
      reducer: Parent(clock: clock, optionalChildPath: \.computedOptionalChild), clock: clock)
    store.send(.optionalChild(.increment))
    store.send(.present) { $0.optionalChild = Child.State() }
    store.send(.optionalChild(.increment)) {
      $0.optionalChild?.count = 1
      $0.parentSawCount = 1
    }
    store.send(.optionalChild(.incrementLater))
    store.send(.dismiss) { $0.optionalChild = nil }
    store.advance(by: .seconds(2))
    store.finish()
  }

  /// A child reduced on a copy written back would hold its references twice while it runs, and
  /// copy each collection it changes.
  func testIfLetReducesThePresentChildWhereItIs() {
    final class Reference {}
    struct ChildState {
      var reference = Reference()
      var wasUnique: Bool?
    }
    struct Holder: Reducer {
      struct State { var child: ChildState? }
      var body: some Reducer<State, Void> {
        EmptyReducer().ifLet(\.child, action: CasePath(embed: { _ in }, extract: { $0 })) {
          Reduce<ChildState, Void> { state, _ in
            state.wasUnique = isKnownUniquelyReferenced(&state.reference)
            return .none
          }
        }
      }
    }
    var state = Holder.State(child: ChildState())
    _ = Holder().reduce(into: &state, action: ())
    XCTAssertEqual(state.child?.wasUnique, true)
  }

  func testLoggingReportsEachActionWithItsState() {
    // Appended to only on the test thread, which drains the store's executor.
    final class Lines: @unchecked Sendable {
      var lines: [String] = []
    }
    let lines = Lines()
    let logger = ActionLogger(isEnabled: true) { line in lines.lines.append(line) }
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Child.State(), reducer: Child(clock: clock).logging(logger), clock: clock)
    store.send(.increment) { $0.count = 1 }
    store.finish()
    XCTAssertEqual(lines.lines, ["action: increment\nstate: State(count: 1)"])
  }

  func testDisabledLoggingBuildsNoDescription() {
    let logger = ActionLogger(isEnabled: false) { _ in XCTFail("must not log") }
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Child.State(), reducer: Child(clock: clock).logging(logger), clock: clock)
    store.send(.increment) { $0.count = 1 }
    store.finish()
  }

  func testAStoreBuildsABodyOnce() {
    // Counted only on the test thread, which drains the store's executor.
    final class Count: @unchecked Sendable {
      var value = 0
    }
    struct Counted: Reducer {
      let builds: Count
      let clock: VirtualClock
      var body: some Reducer<Child.State, Child.Action> {
        builds.value += 1
        return Child(clock: clock)
      }
    }
    let builds = Count()
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Child.State(), reducer: Counted(builds: builds, clock: clock), clock: clock)
    store.send(.increment) { $0.count = 1 }
    store.send(.increment) { $0.count = 2 }
    store.finish()
    XCTAssertEqual(builds.value, 1)
  }
}

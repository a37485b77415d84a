import ComposableDependencies
import ComposableTestSupport
import TodoListFeature
import XCTest

/// Exhaustive tests of the todo list: every state change and every action an effect sends is
/// asserted, on a virtual clock, with the file and the server replaced by closures.
final class TodoListReducerTests: XCTestCase {
  private let clock = VirtualClock()
  private static let now = 1_700_000_000_000
  /// What the fake file holds; nil before the first save.
  private let file = LockedBox<[Todo]?>(nil)
  /// What the fake server answers; nil makes it fail.
  private let server = LockedBox<[Todo]?>([])
  /// The lists sent to the fake server, in order.
  private let sent = LockedBox<[[Todo]]>([])
  private static let offline = RequestFailure(
    kind: .connectionFailed, url: "http://127.0.0.1:1/todos/sync",
    message: "connection refused: http://127.0.0.1:1/todos/sync")

  private struct DiskFull: Error, CustomStringConvertible {
    var description: String { "Cannot save to /data/todos.json: No space left on device." }
  }

  private struct NothingSaved: Error, CustomStringConvertible {
    var description: String { "No todos saved yet at /data/todos.json." }
  }

  /// A store whose saves and syncs take `latency` of virtual time, and whose loads take
  /// `loadLatency`, with the dependencies a test replaces.
  private func makeStore(
    _ state: TodoListState = TodoListState(), latency: Duration = .zero,
    loadLatency: Duration = .zero,
    withDependencies prepare: (inout TodoListDependencies) -> Void = { _ in }
  ) -> TestStore<TodoListState, TodoListAction> {
    let dependencies = TodoListDependencies(
      load: { [clock, file] in
        if loadLatency > .zero { try await clock.sleep(for: loadLatency) }
        guard let todos = file.value else { throw NothingSaved() }
        return todos
      },
      save: { [clock, file] todos in
        if latency > .zero { try await clock.sleep(for: latency) }
        file.set(todos)
      },
      sync: { [clock, server, sent] todos in
        sent.append(todos)
        if latency > .zero { try await clock.sleep(for: latency) }
        guard let todos = server.value else { throw Self.offline }
        return todos
      },
      clock: clock, now: { Self.now })
    return TestStore(
      initialState: state, dependencies: dependencies, clock: clock,
      reducer: { TodoListReducer(dependencies: $0) }, withDependencies: prepare)
  }

  private static let milk = Todo(id: 1, title: "Buy milk")
  private static let dog = Todo(id: 2, title: "Walk the dog")
  private static let paint = Todo(id: 3, title: "Mix the PAINT")
  private static let three = TodoListState(todos: [milk, dog, paint], nextID: 4)

  func testAddGivesCountingIDsAndIgnoresBlankTitles() {
    let store = makeStore()
    store.send(.add(title: "  Buy milk ")) {
      $0.todos = [Self.milk]
      $0.nextID = 2
      $0.visibleIDs = [1]
    }
    store.send(.add(title: " \t "))
    store.send(.add(title: "Walk the dog")) {
      $0.todos = [Self.milk, Self.dog]
      $0.nextID = 3
      $0.visibleIDs = [1, 2]
    }
    store.finish()
  }

  func testAToggledTodoFlipsAndDeleteByAnUnknownIDDoesNothing() {
    let store = makeStore(Self.three)
    store.send(.todos(.element(id: 2, action: .toggled))) { $0.todos[1].done = true }
    store.send(.todos(.element(id: 2, action: .toggled))) { $0.todos[1].done = false }
    store.send(.delete(id: 1)) {
      $0.todos = [Self.dog, Self.paint]
      $0.visibleIDs = [2, 3]
    }
    store.send(.delete(id: 1))
    // Ids are never reused, even once the todo that had one is gone.
    store.send(.add(title: "Call mum")) {
      $0.todos.append(Todo(id: 4, title: "Call mum"))
      $0.nextID = 5
      $0.visibleIDs = [2, 3, 4]
    }
    store.finish()
  }

  func testAnActionForATodoThatIsNotThereChangesNothingAndIsReported() {
    let store = makeStore(Self.three)
    var failures: [String] = []
    store.reportFailure = { message, _, _ in failures.append(message) }
    store.send(.delete(id: 2)) {
      $0.todos = [Self.milk, Self.paint]
      $0.visibleIDs = [1, 3]
    }
    store.send(.todos(.element(id: 2, action: .toggled)))
    XCTAssertEqual(failures.count, 1)
    XCTAssertTrue(
      failures.first?.hasSuffix("no element has id 2; the action changed nothing") == true,
      "\(failures)")
    store.finish()
  }

  func testARenamedTodoIsTrimmedAndRefiltered() {
    let store = makeStore(Self.three)
    store.send(.filterChanged(text: "milk")) { $0.filter = "milk" }
    store.advance(by: TodoListDependencies.filterDebounce)
    store.receive(.filterApplied) {
      $0.appliedFilter = "milk"
      $0.visibleIDs = [1]
    }
    // The list sees the new title: the renamed todo now matches the filter.
    store.send(.todos(.element(id: 3, action: .renamed(title: "  Buy oat MILK ")))) {
      $0.todos[2].title = "Buy oat MILK"
      $0.visibleIDs = [1, 3]
    }
    store.send(.todos(.element(id: 1, action: .renamed(title: "Buy bread")))) {
      $0.todos[0].title = "Buy bread"
      $0.visibleIDs = [3]
    }
    store.send(.todos(.element(id: 1, action: .renamed(title: " "))))
    store.finish()
  }

  func testMoveReordersTheListAndTheVisibleIDs() {
    let store = makeStore(Self.three)
    store.send(.move(from: 2, to: 0)) {
      $0.todos = [Self.paint, Self.milk, Self.dog]
      $0.visibleIDs = [3, 1, 2]
    }
    store.send(.move(from: 0, to: 2)) {
      $0.todos = [Self.milk, Self.dog, Self.paint]
      $0.visibleIDs = [1, 2, 3]
    }
    store.send(.move(from: 1, to: 1))
    store.send(.move(from: 3, to: 0))
    store.send(.move(from: 0, to: -1))
    store.finish()
  }

  func testTheFilterAppliesOnce300MillisecondsAfterTypingStops() {
    let store = makeStore(Self.three)
    store.send(.filterChanged(text: "m")) { $0.filter = "m" }
    store.advance(by: .milliseconds(200))
    // A keystroke within 300 ms restarts the wait.
    store.send(.filterChanged(text: "mI")) { $0.filter = "mI" }
    store.advance(by: .milliseconds(299))
    store.advance(by: .milliseconds(1))
    store.receive(.filterApplied) {
      $0.appliedFilter = "mI"
      $0.visibleIDs = [1, 3]
    }
    store.advance(by: .seconds(10))
    store.finish()
  }

  func testListChangesFollowTheAppliedFilterNotTheTypedOne() {
    var state = Self.three
    state.filter = "dog"
    state.appliedFilter = "dog"
    state.visibleIDs = [2]
    let store = makeStore(state)
    store.send(.add(title: "Feed the DOG")) {
      $0.todos.append(Todo(id: 4, title: "Feed the DOG"))
      $0.nextID = 5
      $0.visibleIDs = [2, 4]
    }
    store.send(.filterChanged(text: "milk")) { $0.filter = "milk" }
    // Until the debounce fires, the list still shows what matches "dog".
    store.send(.add(title: "Milk the cow")) {
      $0.todos.append(Todo(id: 5, title: "Milk the cow"))
      $0.nextID = 6
    }
    store.send(.delete(id: 2)) {
      $0.todos.remove(at: 1)
      $0.visibleIDs = [4]
    }
    store.advance(by: .milliseconds(300))
    store.receive(.filterApplied) {
      $0.appliedFilter = "milk"
      $0.visibleIDs = [1, 5]
    }
    store.send(.filterChanged(text: "")) { $0.filter = "" }
    store.advance(by: .milliseconds(300))
    store.receive(.filterApplied) {
      $0.appliedFilter = ""
      $0.visibleIDs = [1, 3, 4, 5]
    }
    store.finish()
  }

  func testSaveThenLoadRestoresTheList() {
    let store = makeStore(Self.three, latency: .milliseconds(50), loadLatency: .milliseconds(50))
    store.send(.save) { $0.isSaving = true }
    store.advance(by: .milliseconds(50))
    store.receive(.saved) {
      $0.isSaving = false
      $0.lastSaved = Self.now
    }
    XCTAssertEqual(file.value, [Self.milk, Self.dog, Self.paint])
    store.send(.delete(id: 3)) {
      $0.todos = [Self.milk, Self.dog]
      $0.visibleIDs = [1, 2]
    }
    store.send(.load)
    store.advance(by: .milliseconds(50))
    store.receive(.loaded([Self.milk, Self.dog, Self.paint])) {
      $0.todos = [Self.milk, Self.dog, Self.paint]
      $0.visibleIDs = [1, 2, 3]
    }
    store.finish()
  }

  func testANewerSaveReplacesOneInFlight() {
    let store = makeStore(Self.three, latency: .milliseconds(50))
    store.send(.save) { $0.isSaving = true }
    store.advance(by: .milliseconds(20))
    store.send(.todos(.element(id: 1, action: .toggled))) { $0.todos[0].done = true }
    store.send(.save)
    // The first save's outcome never arrives: only the newest one ends `isSaving`.
    store.advance(by: .milliseconds(50))
    store.receive(.saved) {
      $0.isSaving = false
      $0.lastSaved = Self.now
    }
    XCTAssertEqual(file.value?.first?.done, true)
    store.finish()
  }

  func testLoadingMovesNextIDPastTheLoadedIDs() {
    file.set([Todo(id: 41, title: "From last week", done: true)])
    let store = makeStore(TodoListState(todos: [Self.milk], nextID: 2))
    store.send(.load)
    store.receive(.loaded([Todo(id: 41, title: "From last week", done: true)])) {
      $0.todos = [Todo(id: 41, title: "From last week", done: true)]
      $0.nextID = 42
      $0.visibleIDs = [41]
    }
    store.send(.add(title: "New")) {
      $0.todos.append(Todo(id: 42, title: "New"))
      $0.nextID = 43
      $0.visibleIDs = [41, 42]
    }
    store.finish()
  }

  func testStorageFailuresKeepTheListUntilAnOperationSucceeds() {
    let store = makeStore(Self.three) { $0.save = { _ in throw DiskFull() } }
    store.send(.load)
    store.receive(
      .storageFailed(operation: .load, message: "No todos saved yet at /data/todos.json.")
    ) {
      $0.storageError = StorageError(
        operation: .load, message: "No todos saved yet at /data/todos.json.")
    }
    store.send(.save) { $0.isSaving = true }
    store.receive(
      .storageFailed(
        operation: .save, message: "Cannot save to /data/todos.json: No space left on device.")
    ) {
      $0.isSaving = false
      $0.storageError = StorageError(
        operation: .save, message: "Cannot save to /data/todos.json: No space left on device.")
    }
    file.set([Self.dog])
    store.send(.load)
    store.receive(.loaded([Self.dog])) {
      $0.todos = [Self.dog]
      $0.visibleIDs = [2]
      $0.storageError = nil
    }
    store.finish()
  }

  func testAFailedLoadDoesNotEndASaveInFlight() {
    let store = makeStore(Self.three, latency: .milliseconds(50))
    store.send(.save) { $0.isSaving = true }
    // Nothing was saved yet: the load fails at once, while the save is still running.
    store.send(.load)
    store.receive(
      .storageFailed(operation: .load, message: "No todos saved yet at /data/todos.json.")
    ) {
      $0.storageError = StorageError(
        operation: .load, message: "No todos saved yet at /data/todos.json.")
    }
    store.advance(by: .milliseconds(50))
    store.receive(.saved) {
      $0.isSaving = false
      $0.lastSaved = Self.now
      $0.storageError = nil
    }
    store.finish()
  }

  func testSyncMergesTheServerListByID() {
    var state = Self.three
    state.appliedFilter = "o"
    state.filter = "o"
    state.visibleIDs = [2]
    server.set([
      Todo(id: 2, title: "Walk the dog", done: true),
      Todo(id: 7, title: "Book flights"),
    ])
    let store = makeStore(state)
    store.send(.sync) { $0.isSyncing = true }
    store.receive(.synced(server.value!)) {
      $0.isSyncing = false
      $0.todos = [
        Self.milk, Todo(id: 2, title: "Walk the dog", done: true), Self.paint,
        Todo(id: 7, title: "Book flights"),
      ]
      $0.nextID = 8
      $0.visibleIDs = [2, 7]
    }
    store.finish()
    XCTAssertEqual(sent.value, [Self.three.todos.elements])
  }

  func testAFailedSyncKeepsTheListAndTheNextSyncClearsTheError() {
    server.set(nil)
    let store = makeStore(Self.three)
    store.send(.sync) { $0.isSyncing = true }
    store.receive(.syncFailed(Self.offline)) {
      $0.isSyncing = false
      $0.syncError = Self.offline
    }
    server.set([])
    store.send(.sync) { $0.isSyncing = true }
    store.receive(.synced([])) {
      $0.isSyncing = false
      $0.syncError = nil
    }
    store.finish()
  }

  func testANewerSyncReplacesOneInFlight() {
    let store = makeStore(Self.three, latency: .milliseconds(100))
    server.set([Todo(id: 10, title: "old answer")])
    store.send(.sync) { $0.isSyncing = true }
    store.advance(by: .milliseconds(50))
    server.set([Todo(id: 11, title: "new answer")])
    store.send(.sync)
    store.advance(by: .milliseconds(50))
    store.advance(by: .milliseconds(50))
    store.receive(.synced([Todo(id: 11, title: "new answer")])) {
      $0.isSyncing = false
      $0.todos.append(Todo(id: 11, title: "new answer"))
      $0.nextID = 12
      $0.visibleIDs = [1, 2, 3, 11]
    }
    store.finish()
  }

  /// A non-exhaustive test asserts what it is about and lets the rest happen: a sync while a
  /// filter is applied shows the server's todos that match it, whatever else changed on the
  /// way (the debounced filter's own action, `isSyncing`, `nextID`).
  func testASyncShowsTheServersTodosThatMatchTheFilter() {
    server.set([Todo(id: 7, title: "Walk the cat"), Todo(id: 8, title: "Buy bread")])
    let store = makeStore(Self.three)
    store.exhaustivity = .off
    store.send(.filterChanged(text: "walk"))
    store.advance(by: TodoListDependencies.filterDebounce)
    store.send(.sync)
    store.receive(\.synced) { $0.visibleIDs = [2, 7] }
    store.finish()
  }
}

extension TodoListAction {
  /// The case `synced`, for `receive(\.synced)`.
  fileprivate var synced: [Todo]? {
    if case .synced(let todos) = self { todos } else { nil }
  }
}

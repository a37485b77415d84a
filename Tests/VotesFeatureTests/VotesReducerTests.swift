import ComposableDependencies
import ComposableTestSupport
import VotesFeature
import XCTest

/// Exhaustive tests of the votes screen: three loads counted by `task.willRun`/`didFinish`, one
/// loading flag throttled by 0.2 s, failures that still finish, and paging without duplicates.
final class VotesReducerTests: XCTestCase {
  private let clock = VirtualClock()
  /// Every votes request, as (page, category).
  private let votesRequests = LockedBox<[String]>([])

  private static let categories = [
    VoteCategory(id: "food", name: "Food"), VoteCategory(id: "tech", name: "Tech"),
  ]
  private static let popular = [Vote(id: 9, title: "Ramen", category: "food", votes: 90)]

  private static func votes(page: Int, size: Int, category: String?) -> VotePage {
    let all = (1...5).map {
      Vote(id: $0, title: "vote \($0)", category: $0.isMultiple(of: 2) ? "tech" : "food", votes: $0)
    }
    let matching = all.filter { category == nil || $0.category == category }
    let items = Array(matching.dropFirst((page - 1) * size).prefix(size))
    return VotePage(
      items: items, page: page, size: size, hasNext: page * size < matching.count)
  }

  private static let failure = RequestFailure(
    kind: .status, url: "http://127.0.0.1:1/votes/popular",
    message: "HTTP 500 Internal Server Error")

  /// A store whose loads take these latencies of virtual time; `popularFails` makes the popular
  /// list's request fail.
  private func makeStore(
    categories: Duration = .milliseconds(100), popular: Duration = .milliseconds(300),
    votes: Duration = .milliseconds(250), popularFails: Bool = false
  ) -> TestStore<VotesState, VotesAction> {
    let dependencies = VotesDependencies(
      fetchCategories: { [clock] in
        try await clock.sleep(for: categories)
        return Self.categories
      },
      fetchPopular: { [clock] in
        try await clock.sleep(for: popular)
        if popularFails { throw Self.failure }
        return Self.popular
      },
      fetchVotes: { [clock, votesRequests] page, size, category in
        votesRequests.append("\(page) \(category ?? "all")")
        try await clock.sleep(for: votes)
        return Self.votes(page: page, size: size, category: category)
      },
      clock: clock, pageSize: 2)
    return TestStore(
      initialState: VotesState(), reducer: VotesReducer(dependencies: dependencies), clock: clock)
  }

  /// `onAppear` up to the moment the three loads run and loading shows.
  private func appear(_ store: TestStore<VotesState, VotesAction>) {
    store.send(.onAppear) { $0.hasAppeared = true }
    startLoadingAll(store)
  }

  private func startLoadingAll(_ store: TestStore<VotesState, VotesAction>) {
    store.receive(.getVoteHeaderSectionItems)
    store.receive(.getPopularVoteItems)
    store.receive(.getInitialVoteItems) { $0.pageInFlight = 1 }
    store.receive(.task(.willRun)) { $0.runningTasks = 1 }
    store.receive(.task(.willRun)) { $0.runningTasks = 2 }
    store.receive(.task(.willRun)) { $0.runningTasks = 3 }
  }

  /// A load's result and its `didFinish`, which leaves `stillRunning` loads. Categories loaded
  /// again (`reloaded`) change nothing.
  private func receiveCategories(
    _ store: TestStore<VotesState, VotesAction>, stillRunning: Int, reloaded: Bool = false
  ) {
    store.receive(
      .inner(.updateVoteHeaderCategory(.success(Self.categories))),
      assert: reloaded ? nil : { $0.categories = Self.categories })
    store.receive(.task(.didFinish)) { $0.runningTasks = stillRunning }
  }

  private func receivePopular(_ store: TestStore<VotesState, VotesAction>, stillRunning: Int) {
    store.receive(.inner(.updatePopularItems(.success(Self.popular)))) {
      $0.popularItems = Self.popular
    }
    store.receive(.task(.didFinish)) { $0.runningTasks = stillRunning }
  }

  private func receiveFirstPage(_ store: TestStore<VotesState, VotesAction>, stillRunning: Int) {
    let firstPage = Self.votes(page: 1, size: 2, category: nil)
    store.receive(.inner(.updateVoteItems(.success(firstPage)))) {
      $0.voteItems = IdentifiedArray(uniqueElements: firstPage.items)
      $0.page = 1
      $0.hasNext = true
      $0.pageInFlight = nil
    }
    store.receive(.task(.didFinish)) { $0.runningTasks = stillRunning }
  }

  func testLoadingShowsUntilAllThreeFinishedThenEnds() {
    let store = makeStore()
    appear(store)
    store.receive(.isLoading(true)) { $0.isLoading = true }
    store.advance(by: .milliseconds(100))
    receiveCategories(store, stillRunning: 2)
    store.advance(by: .milliseconds(150))
    receiveFirstPage(store, stillRunning: 1)
    store.advance(by: .milliseconds(50))
    store.receive(.inner(.updatePopularItems(.success(Self.popular)))) {
      $0.popularItems = Self.popular
    }
    // The throttle's 0.2 s since `isLoading(true)` has passed: off at once, with the last list.
    store.receive(.task(.didFinish)) { $0.runningTasks = 0 }
    store.receive(.isLoading(false)) { $0.isLoading = false }
    store.finish()
  }

  func testAQuickLoadTurnsLoadingOffOnlyAfterTheThrottleInterval() {
    let store = makeStore(
      categories: .milliseconds(10), popular: .milliseconds(20), votes: .milliseconds(30))
    appear(store)
    store.receive(.isLoading(true)) { $0.isLoading = true }
    store.advance(by: .milliseconds(30))
    receiveCategories(store, stillRunning: 2)
    receivePopular(store, stillRunning: 1)
    receiveFirstPage(store, stillRunning: 0)
    store.advance(by: .milliseconds(169))
    store.advance(by: .milliseconds(1))
    store.receive(.isLoading(false)) { $0.isLoading = false }
    store.finish()
  }

  func testAFailingRequestStillFinishesAndKeepsItsError() {
    let store = makeStore(popularFails: true)
    appear(store)
    store.receive(.isLoading(true)) { $0.isLoading = true }
    store.advance(by: .milliseconds(300))
    receiveCategories(store, stillRunning: 2)
    receiveFirstPage(store, stillRunning: 1)
    store.receive(.inner(.updatePopularItems(.failure(Self.failure)))) {
      $0.errors.popular = Self.failure
    }
    store.receive(.task(.didFinish)) { $0.runningTasks = 0 }
    store.receive(.isLoading(false)) { $0.isLoading = false }
    store.finish()
  }

  func testASecondAppearDoesNothing() {
    let store = makeStore()
    appear(store)
    store.receive(.isLoading(true)) { $0.isLoading = true }
    store.send(.onAppear)
    store.advance(by: .milliseconds(300))
    finishInitialLoad(store)
    store.finish()
  }

  /// The rest of a default-latency initial load, once 300 ms have passed.
  private func finishInitialLoad(
    _ store: TestStore<VotesState, VotesAction>, reloaded: Bool = false
  ) {
    receiveCategories(store, stillRunning: 2, reloaded: reloaded)
    receiveFirstPage(store, stillRunning: 1)
    receivePopular(store, stillRunning: 0)
    store.receive(.isLoading(false)) { $0.isLoading = false }
  }

  func testPagesLoadOnceEachAndStopAtTheLast() {
    let store = makeStore()
    appear(store)
    store.receive(.isLoading(true)) { $0.isLoading = true }
    store.advance(by: .milliseconds(300))
    finishInitialLoad(store)

    // Loading went off at 300 ms: the throttle holds each change for 0.2 s after the last one.
    store.send(.loadNextPage) { $0.pageInFlight = 2 }
    store.receive(.task(.willRun)) { $0.runningTasks = 1 }
    // A second request while page 2 loads does not load it again.
    store.send(.loadNextPage)
    store.advance(by: .milliseconds(200))
    store.receive(.isLoading(true)) { $0.isLoading = true }
    store.advance(by: .milliseconds(50))
    let secondPage = Self.votes(page: 2, size: 2, category: nil)
    store.receive(.inner(.updateVoteItems(.success(secondPage)))) {
      $0.voteItems.append(contentsOf: secondPage.items)
      $0.page = 2
      $0.pageInFlight = nil
    }
    store.receive(.task(.didFinish)) { $0.runningTasks = 0 }
    store.advance(by: .milliseconds(150))
    store.receive(.isLoading(false)) { $0.isLoading = false }

    store.send(.loadNextPage) { $0.pageInFlight = 3 }
    store.receive(.task(.willRun)) { $0.runningTasks = 1 }
    store.advance(by: .milliseconds(250))
    store.receive(.isLoading(true)) { $0.isLoading = true }
    let lastPage = Self.votes(page: 3, size: 2, category: nil)
    store.receive(.inner(.updateVoteItems(.success(lastPage)))) {
      $0.voteItems.append(contentsOf: lastPage.items)
      $0.page = 3
      $0.hasNext = false
      $0.pageInFlight = nil
    }
    store.receive(.task(.didFinish)) { $0.runningTasks = 0 }
    store.advance(by: .milliseconds(200))
    store.receive(.isLoading(false)) { $0.isLoading = false }
    XCTAssertEqual(store.state.voteItems.map(\.id), [1, 2, 3, 4, 5])

    store.send(.loadNextPage)
    store.finish()
    XCTAssertEqual(votesRequests.value, ["1 all", "2 all", "3 all"])
  }

  /// A server may answer any page number: after the largest there is no next page to ask for.
  func testAServerAtTheLastPageNumberThereIsHasNoNextPage() {
    var state = VotesState()
    state.page = .max
    state.hasNext = true
    let store = TestStore(
      initialState: state,
      reducer: VotesReducer(
        dependencies: VotesDependencies(
          fetchCategories: { [] }, fetchPopular: { [] },
          fetchVotes: { _, _, _ in
            XCTFail("no page to fetch")
            return Self.votes(page: 1, size: 2, category: nil)
          },
          clock: clock, pageSize: 2)),
      clock: clock)
    store.send(.loadNextPage)
    store.finish()
  }

  func testRefreshWhileLoadingCancelsAndCountsAgainFromZero() {
    let store = makeStore()
    appear(store)
    store.receive(.isLoading(true)) { $0.isLoading = true }
    store.advance(by: .milliseconds(100))
    receiveCategories(store, stillRunning: 2)
    store.send(.refresh) {
      $0.runningTasks = 0
      $0.pageInFlight = nil
    }
    startLoadingAll(store)
    // Loading is already on; the throttle passes the repeated `true` at the end of its interval.
    store.advance(by: .milliseconds(100))
    store.receive(.isLoading(true))
    store.advance(by: .milliseconds(200))
    finishInitialLoad(store, reloaded: true)
    store.finish()
    XCTAssertEqual(votesRequests.value, ["1 all", "1 all"])
  }

  func testSelectingACategoryReloadsTheFirstPageFilteredAndReplacesALoadInFlight() {
    let store = makeStore()
    appear(store)
    store.receive(.isLoading(true)) { $0.isLoading = true }
    store.send(.categorySelected("tech")) {
      $0.selectedCategory = "tech"
      $0.runningTasks = 2
    }
    store.receive(.task(.willRun)) { $0.runningTasks = 3 }
    store.send(.categorySelected("tech"))
    store.advance(by: .milliseconds(300))
    receiveCategories(store, stillRunning: 2)
    let techPage = Self.votes(page: 1, size: 2, category: "tech")
    store.receive(.inner(.updateVoteItems(.success(techPage)))) {
      $0.voteItems = IdentifiedArray(uniqueElements: techPage.items)
      $0.page = 1
      $0.hasNext = false
      $0.pageInFlight = nil
    }
    store.receive(.task(.didFinish)) { $0.runningTasks = 1 }
    receivePopular(store, stillRunning: 0)
    store.receive(.isLoading(false)) { $0.isLoading = false }
    store.finish()
    XCTAssertEqual(votesRequests.value, ["1 all", "1 tech"])
  }
}

import ComposableDependencies

/// Three lists loaded in parallel behind one loading flag.
///
/// The original's naive version turned loading off before any data arrived. Here every load is
/// wrapped by ``tracked(_:_:)`` in `task.willRun` / `task.didFinish`, the state counts what
/// runs, and `isLoading(false)` is sent when the count returns to zero. A failed load sends its
/// failure and still finishes, so loading always ends.
public struct VotesReducer: Reducer {
  enum CancelID { case categories, popular, votes, loading }

  let dependencies: VotesDependencies

  public init(dependencies: VotesDependencies) {
    self.dependencies = dependencies
  }

  public func reduce(into state: inout VotesState, action: VotesAction) -> Effect<VotesAction> {
    switch action {
    case .onAppear:
      guard !state.hasAppeared else { return .none }
      state.hasAppeared = true
      return loadAll()

    case .refresh:
      state.pageInFlight = nil
      // The cancelled loads never send `didFinish`; the new ones count from zero.
      state.runningTasks = 0
      return .concatenate(
        .cancel(id: CancelID.categories), .cancel(id: CancelID.popular),
        .cancel(id: CancelID.votes), loadAll())

    case .categorySelected(let category):
      guard category != state.selectedCategory else { return .none }
      state.selectedCategory = category
      return loadVotes(page: 1, &state)

    case .getVoteHeaderSectionItems:
      return tracked(CancelID.categories) { [dependencies] in
        .updateVoteHeaderCategory(.success(try await dependencies.fetchCategories()))
      } failure: {
        .updateVoteHeaderCategory(.failure($0))
      }

    case .getPopularVoteItems:
      return tracked(CancelID.popular) { [dependencies] in
        .updatePopularItems(.success(try await dependencies.fetchPopular()))
      } failure: {
        .updatePopularItems(.failure($0))
      }

    case .getInitialVoteItems:
      return loadVotes(page: 1, &state)

    case .loadNextPage:
      // The page number comes from the server: one that claims more pages after the largest
      // number there is has none to give.
      let (next, overflows) = state.page.addingReportingOverflow(1)
      guard state.hasNext, state.pageInFlight == nil, !overflows else { return .none }
      return loadVotes(page: next, &state)

    case .task(.willRun):
      // Saturating, like the page: a scenario's initialState may start the count anywhere.
      state.runningTasks = state.runningTasks.addingSaturating(1)
      return state.runningTasks == 1 ? setLoading(true) : .none

    case .task(.didFinish):
      state.runningTasks = state.runningTasks.subtractingSaturating(1)
      return state.runningTasks == 0 ? setLoading(false) : .none

    case .inner(.updateVoteHeaderCategory(.success(let categories))):
      state.categories = categories
      state.errors.categories = nil
      return .none

    case .inner(.updateVoteHeaderCategory(.failure(let failure))):
      state.errors.categories = failure
      return .none

    case .inner(.updatePopularItems(.success(let items))):
      state.popularItems = items
      state.errors.popular = nil
      return .none

    case .inner(.updatePopularItems(.failure(let failure))):
      state.errors.popular = failure
      return .none

    case .inner(.updateVoteItems(.success(let page))):
      state.pageInFlight = nil
      if page.page == 1 { state.voteItems.removeAll() }
      state.voteItems.append(contentsOf: page.items)
      state.page = page.page
      state.hasNext = page.hasNext
      state.errors.votes = nil
      return .none

    case .inner(.updateVoteItems(.failure(let failure))):
      state.pageInFlight = nil
      state.errors.votes = failure
      return .none

    case .isLoading(let isLoading):
      state.isLoading = isLoading
      return .none
    }
  }

  private func loadAll() -> Effect<VotesAction> {
    .merge(
      .send(.getVoteHeaderSectionItems), .send(.getPopularVoteItems), .send(.getInitialVoteItems))
  }

  /// Loads a page of votes; a page still loading is cancelled (`cancelInFlight`) and so never
  /// finishes, which the count must know.
  private func loadVotes(page: Int, _ state: inout VotesState) -> Effect<VotesAction> {
    if state.pageInFlight != nil {
      state.runningTasks = state.runningTasks.subtractingSaturating(1)
    }
    state.pageInFlight = page
    let (size, category) = (dependencies.pageSize, state.selectedCategory)
    return tracked(CancelID.votes) { [dependencies] in
      .updateVoteItems(.success(try await dependencies.fetchVotes(page, size, category)))
    } failure: {
      .updateVoteItems(.failure($0))
    }
  }

  /// A load counted by the screen: `task.willRun`, the load's result, `task.didFinish`. A newer
  /// load of the same list cancels this one, which then sends nothing more.
  private func tracked(
    _ id: CancelID, load: @escaping @Sendable () async throws -> InnerAction,
    failure: @escaping @Sendable (RequestFailure) -> InnerAction
  ) -> Effect<VotesAction> {
    .concatenate(
      .send(.task(.willRun)),
      .run { send in
        await send(.inner(try await load()))
      } catch: { error, send in
        await send(.inner(failure(RequestFailure(error))))
      },
      .send(.task(.didFinish))
    )
    .cancellable(id: id, cancelInFlight: true)
  }

  private func setLoading(_ isLoading: Bool) -> Effect<VotesAction> {
    .send(.isLoading(isLoading))
      .throttle(
        id: CancelID.loading, for: dependencies.loadingThrottle, clock: dependencies.clock,
        latest: true)
  }
}

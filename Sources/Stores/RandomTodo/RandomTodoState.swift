import ComposableDependencies

@FieldwiseState
public struct RandomTodoState: Equatable, Sendable {
  /// The last todo fetched; cleared by a failed fetch, so the screen shows one or the other.
  public var todo: Todo?
  /// Why the last fetch failed, with the URL that failed.
  public var failure: RequestFailure?
  public var isAutoRefreshing: Bool
  public var isFetching: Bool

  public init(
    todo: Todo? = nil, failure: RequestFailure? = nil, isAutoRefreshing: Bool = false,
    isFetching: Bool = false
  ) {
    self.todo = todo
    self.failure = failure
    self.isAutoRefreshing = isAutoRefreshing
    self.isFetching = isFetching
  }

  /// The id label of the original screen: `"#17"`, or empty before any todo arrived.
  @EncodedMember public var idText: String { todo.map { "#\($0.id)" } ?? "" }

  /// The title label: the todo's title, or what went wrong.
  @EncodedMember public var titleText: String {
    if let failure { return failure.message }
    return todo?.title ?? ""
  }
}

/// The display fields are encoded beside the stored ones (`@EncodedMember`), so a host shows
/// the screen without deriving anything; decoding ignores them.
extension RandomTodoState: Decodable {
  enum CodingKeys: String, CodingKey {
    case todo, failure, isAutoRefreshing, isFetching
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      todo: try container.decode(Todo?.self, forKey: .todo),
      failure: try container.decode(RequestFailure?.self, forKey: .failure),
      isAutoRefreshing: try container.decode(Bool.self, forKey: .isAutoRefreshing),
      isFetching: try container.decode(Bool.self, forKey: .isFetching))
  }
}

import ComposableDependencies

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
  public var idText: String { todo.map { "#\($0.id)" } ?? "" }

  /// The title label: the todo's title, or what went wrong.
  public var titleText: String {
    if let failure { return failure.message }
    return todo?.title ?? ""
  }
}

/// Encodes the display fields beside the stored ones, so a host shows the screen without
/// deriving anything; decoding ignores them.
extension RandomTodoState: Codable {
  enum CodingKeys: String, CodingKey {
    case todo, failure, isAutoRefreshing, isFetching, idText, titleText
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      todo: try container.decode(Todo?.self, forKey: .todo),
      failure: try container.decode(RequestFailure?.self, forKey: .failure),
      isAutoRefreshing: try container.decode(Bool.self, forKey: .isAutoRefreshing),
      isFetching: try container.decode(Bool.self, forKey: .isFetching))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(todo, forKey: .todo)
    try container.encode(failure, forKey: .failure)
    try container.encode(isAutoRefreshing, forKey: .isAutoRefreshing)
    try container.encode(isFetching, forKey: .isFetching)
    try container.encode(idText, forKey: .idText)
    try container.encode(titleText, forKey: .titleText)
  }
}

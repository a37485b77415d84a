/// One entry of a vote list.
public struct Vote: Equatable, Codable, Sendable, Identifiable {
  public var id: Int
  public var title: String
  public var category: String
  public var votes: Int

  public init(id: Int, title: String, category: String, votes: Int) {
    self.id = id
    self.title = title
    self.category = category
    self.votes = votes
  }
}

/// A header section: the categories votes can be filtered by.
public struct VoteCategory: Equatable, Codable, Sendable {
  public var id: String
  public var name: String

  public init(id: String, name: String) {
    self.id = id
    self.name = name
  }
}

/// One page of `GET /votes?page=&size=&category=`.
public struct VotePage: Equatable, Codable, Sendable {
  public var items: [Vote]
  public var page: Int
  public var size: Int
  public var hasNext: Bool

  public init(items: [Vote], page: Int, size: Int, hasNext: Bool) {
    self.items = items
    self.page = page
    self.size = size
    self.hasNext = hasNext
  }
}

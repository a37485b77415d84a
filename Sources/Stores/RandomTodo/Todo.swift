/// A todo as JSONPlaceholder's `GET /todos/{id}` returns it.
public struct Todo: Equatable, Codable, Sendable {
  public var userId: Int
  public var id: Int
  public var title: String
  public var completed: Bool

  public init(userId: Int, id: Int, title: String, completed: Bool) {
    self.userId = userId
    self.id = id
    self.title = title
    self.completed = completed
  }
}

import ComposableDependencies

/// One todo, as the state, the saved file and the sync endpoint all spell it:
/// `{"id": 1, "title": "Buy milk", "done": false}`.
public struct Todo: Equatable, Codable, Sendable, Identifiable {
  public var id: Int
  public var title: String
  public var done: Bool

  public init(id: Int, title: String, done: Bool = false) {
    self.id = id
    self.title = title
    self.done = done
  }
}

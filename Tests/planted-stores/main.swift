import ComposableActor

// A binary of stores with planted bugs, for the end-to-end tests of `simulate`: the bugs that
// a unit test cannot host because they end the process.

/// A list with a cursor that should stop at the last item; `<` against the count instead of
/// the last index lets it step past it, and reading there traps (index out of range).
enum CursorStore: StoreDefinition {
  struct State: Codable, Equatable, Sendable {
    var items: [Int] = []
    var cursor = 0
    var read: Int?
  }
  enum Action: ComposableAction, Equatable {
    case add(value: Int)
    case next
    case read
    case clear
  }
  struct Feature: Reducer {
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .add(let value):
        state.items.append(value)
      case .next:
        if state.cursor < state.items.count { state.cursor += 1 }
      case .read:
        if !state.items.isEmpty { state.read = state.items[state.cursor] }
      case .clear:
        state = State()
      }
      return .none
    }
  }
  static let name = "cursor"
  static let summary = "A list read at a cursor."
  static let actions: [ActionDescriptor] = [
    .init("add", sentBy: .host, "Appends a value."),
    .init("next", sentBy: .host, "Moves the cursor to the next item, up to the last."),
    .init("read", sentBy: .host, "Reads the item at the cursor."),
    .init("clear", sentBy: .host, "Empties the list."),
  ]
  static let initialState = State()
  static func reducer(options: NoOptions, services: Services) -> Feature { Feature() }
}

ComposableActorCommand.main(stores: [CursorStore.self])

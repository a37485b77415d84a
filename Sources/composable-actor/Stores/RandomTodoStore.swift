import ComposableCore
import EventLoop
import JSON
import LiveDependencies
import Protocol
import RandomTodoFeature

/// The `randomTodo` store: a random todo over HTTP with live dependencies, and its wire
/// description.
enum RandomTodoStore {
  @StoreActor
  static func make(in environment: StoreEnvironment) -> StoreHost<
    RandomTodoState, RandomTodoAction
  > {
    let dependencies = RandomTodoDependencies.live(
      http: environment.http, baseURL: environment.options.todosURL, random: environment.random,
      clock: environment.clock)
    let store = Store(
      initialState: RandomTodoState(), reducer: RandomTodoReducer(dependencies: dependencies))
    return StoreHost(store: store, descriptor: descriptor, output: environment.storeOutput)
  }

  static let descriptor = StoreDescriptor(
    name: "randomTodo",
    summary: "A random todo (GET {--todos-url}/todos/{1…100}), refreshed every 3 s or on demand.",
    actions: [
      .init(
        "viewDidAppear", sentBy: .host,
        "Starts the automatic refresh: a fetch every 3 s, the first 3 s from now. Starting it "
          + "again while it runs does nothing."),
      .init(
        "clickButton", sentBy: .host,
        "Stops the automatic refresh, then fetches once; a newer fetch replaces one in flight."),
      .init(
        "stopRandomText", sentBy: .host,
        "Stops the automatic refresh. A fetch already in flight still completes and is shown."),
      .init("timerTicked", sentBy: .effect, "The automatic refresh's timer fired: fetches once."),
      .init(
        "fetchResult.success", sentBy: .effect, "The todo that was fetched.",
        payload: [.init("value", todo)]),
      .init(
        "fetchResult.failure", sentBy: .effect,
        "The fetch failed: no connection, a timeout, TLS, an HTTP status, or a body that is not "
          + "a todo.",
        payload: [.init("value", Schema.requestFailure)]),
    ],
    stateSchema: [
      "type": "object",
      "properties": [
        "todo": Schema.nullable(todo),
        "failure": Schema.nullable(Schema.requestFailure),
        "isAutoRefreshing": Schema.boolean,
        "isFetching": Schema.boolean,
        "idText": ["type": "string", "description": "\"#17\", or empty before the first todo"],
        "titleText": [
          "type": "string", "description": "the todo's title, or the failure's message",
        ],
      ],
      "required": ["todo", "failure", "isAutoRefreshing", "isFetching", "idText", "titleText"],
      "additionalProperties": false,
    ])

  private static let todo = Schema.object([
    "userId": Schema.integer, "id": Schema.integer, "title": Schema.string,
    "completed": Schema.boolean,
  ])
}

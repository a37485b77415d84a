import ComposableCore
import XCTest

/// What a store's observer reads of each reduction's cause.
final class ReducedActionTests: XCTestCase {
  struct PingPong: Reducer {
    enum Action: Equatable, Sendable {
      case ping
      case pong
    }

    func reduce(into state: inout Int, action: Action) -> Effect<Action> {
      state += 1
      return action == .ping ? .send(.pong) : .none
    }
  }

  struct Seen: Equatable {
    let action: PingPong.Action
    let number: Int?
    let text: String?
  }

  func testACauseReadsAsItsOwnTypeAloneAndTheActionsItsReductionSentCarryIt() {
    StoreActor.install(executor: ManualExecutor())
    StoreActor.assumeIsolated {
      let store = Store(initialState: 0, reducer: PingPong())
      var seen: [Seen] = []
      store.didReduce = { reduced, _ in
        seen.append(
          Seen(
            action: reduced.action, number: reduced.cause(as: Int.self),
            text: reduced.cause(as: String.self)))
        return nil
      }
      store.send(.ping, cause: 7)
      store.send(.ping)
      store.send(.pong, cause: "seven")
      XCTAssertEqual(
        seen,
        [
          Seen(action: .ping, number: 7, text: nil), Seen(action: .pong, number: 7, text: nil),
          Seen(action: .ping, number: nil, text: nil), Seen(action: .pong, number: nil, text: nil),
          Seen(action: .pong, number: nil, text: "seven"),
        ])
    }
  }
}

import ComposableCore
import JSON
@_spi(Hosting) import Protocol
import XCTest

/// What a reducer reports (a `forEach` action for a missing element) reaches the host as an
/// error line after the action's own line, and changes nothing else.
final class StoreHostIssueTests: XCTestCase {
  private struct Row: Reducer {
    struct State: Equatable, Codable, Sendable, Identifiable {
      let id: Int
      var done = false
    }
    enum Action: ComposableAction, Equatable {
      case toggled
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.done.toggle()
      return .none
    }
  }

  private struct List: Reducer {
    struct State: Equatable, Encodable, Sendable {
      var rows: IdentifiedArrayOf<Row.State> = [Row.State(id: 1)]
    }
    enum Action: ComposableAction, Equatable {
      case rows(IdentifiedActionOf<Row>)

      enum Cases {
        static let rows = CasePath<Action, IdentifiedActionOf<Row>>(embed: Action.rows) {
          guard case .rows(let action) = $0 else { return nil }
          return action
        }
      }
    }

    var body: some Reducer<State, Action> {
      EmptyReducer().forEach(\.rows, action: Action.Cases.rows) { Row() }
    }
  }

  func testAnActionForAMissingElementIsReducedThenReportedAsUnknownElement() throws {
    StoreActor.install(executor: ManualExecutor())
    let lines = StoreActor.assumeIsolated {
      let output = OutputLines()
      let host = StoreHost(
        store: Store(initialState: List.State(), reducer: List()),
        descriptor: StoreDescriptor(
          name: "list", summary: "", actions: [.init("rows.element", sentBy: .host, "")],
          stateSchema: [:]),
        output: StoreOutput(lines: output, sequence: ActionSequence(), mode: .actions))
      try? host.send(
        ["type": "rows.element", "id": 1, "action": ["type": "toggled"]], id: "a1")
      try? host.send(
        ["type": "rows.element", "id": 9, "action": ["type": "toggled"]], id: "a2")
      var bytes: [UInt8] = []
      output.drain { bytes.append(contentsOf: $0) }
      return bytes.split(separator: UInt8(ascii: "\n")).map { line in
        (try? Array(line).withUnsafeBytes { try JSONParser.parse($0) }) ?? .null
      }
    }
    guard lines.count == 3 else { return XCTFail("\(lines.count) lines: \(lines)") }
    XCTAssertEqual(lines[0]["patch"], [["op": "replace", "path": "/rows/0/done", "value": true]])
    XCTAssertEqual(lines[1]["seq"], 2)
    XCTAssertEqual(lines[1]["patch"], [])
    XCTAssertEqual(
      lines[2],
      [
        "type": "error", "code": "unknown_element", "store": "list",
        "action": ["type": "rows.element", "id": 9, "action": ["type": "toggled"]], "id": "a2",
        "message": "list: rows.element: no element has id 9; the action changed nothing",
      ])
  }
}

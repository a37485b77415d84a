import JSON
import XCTest

@testable import ComposableHarness

final class StateEditTests: XCTestCase {
  let state: JSONValue = [
    "todos": [["id": 1, "done": false], ["id": "b", "done": false]], "log": [1],
  ]

  func testOperationsApplyInOrderWithAppendAndIDs() throws {
    let edit = try StateEdit(
      [
        ["op": "add", "path": "/log/-", "value": 2],
        ["op": "replace", "path": "/todos/[id=\"b\"]/done", "value": true],
        ["op": "remove", "path": "/todos/[id=1]"],
      ])
    XCTAssertEqual(
      try edit.applied(to: state), ["todos": [["id": "b", "done": true]], "log": [1, 2]])
  }

  func testAnIDTokenIsResolvedOnlyInsideAnArray() throws {
    XCTAssertEqual(try StateEdit.resolved("/todos/[id=\"b\"]/done", in: state), "/todos/1/done")
    XCTAssertEqual(try StateEdit.resolved("/[id=1]", in: state), "/[id=1]")
    XCTAssertEqual(try StateEdit.resolved("/log/-", in: state), "/log/-")
  }

  func testAMissingIDOrABadOperationSaysWhich() throws {
    XCTAssertThrowsError(
      try StateEdit([["op": "replace", "path": "/todos/[id=9]/done", "value": true]])
        .applied(to: state)
    ) { error in
      XCTAssertEqual(
        (error as? ScenarioError)?.message, "\"edit\" operation 0: no element with id 9 in /todos")
    }
    XCTAssertThrowsError(try StateEdit([["op": "append", "path": "/log"]])) { error in
      XCTAssertEqual(
        (error as? ScenarioError)?.message,
        "\"edit\" operation 0: unknown op \"append\"")
    }
    XCTAssertThrowsError(try StateEdit([])) { error in
      XCTAssertEqual(
        (error as? ScenarioError)?.message,
        "\"edit\" must be a non-empty array of JSON Patch operations")
    }
  }
}

import ComposableCore
import JSON
import Protocol
import XCTest

// A list of rows run with `forEach`: its element actions carry the row's action in a field.
private enum ListAction: ComposableAction, Equatable {
  case rows(IdentifiedAction<Int, RowAction>)
  case tags(IdentifiedAction<String, RowAction>)
  case maybe(id: Int, action: RowAction?)
  case clear
}

private enum RowAction: ComposableAction, Equatable {
  case toggled
  case renamed(title: String)
  case menu(MenuAction)
}

private enum MenuAction: ComposableAction, Equatable {
  case opened
}

/// A labelled value of an action type is a field holding that action in its own wire form,
/// both ways, strictly, and the schemas say so.
final class ElementActionCodingTests: XCTestCase {
  private let table: [(ListAction, String)] = [
    (
      .rows(.element(id: 3, action: .toggled)),
      #"{"type":"rows.element","id":3,"action":{"type":"toggled"}}"#
    ),
    (
      .rows(.element(id: 4, action: .renamed(title: "Milk"))),
      #"{"type":"rows.element","id":4,"action":{"type":"renamed","title":"Milk"}}"#
    ),
    (
      .rows(.element(id: 5, action: .menu(.opened))),
      #"{"type":"rows.element","id":5,"action":{"type":"menu.opened"}}"#
    ),
    (
      .tags(.element(id: "urgent", action: .toggled)),
      #"{"type":"tags.element","id":"urgent","action":{"type":"toggled"}}"#
    ),
    (.maybe(id: 1, action: nil), #"{"type":"maybe","id":1,"action":null}"#),
    (.maybe(id: 1, action: .toggled), #"{"type":"maybe","id":1,"action":{"type":"toggled"}}"#),
  ]

  func testAnElementActionEncodesItsActionAsAFieldInItsWireForm() {
    for (action, wire) in table {
      XCTAssertEqual(ActionCoding.encode(action).jsonString, wire)
      var buffer: [UInt8] = []
      ActionCoding.encode(action, into: &buffer)
      XCTAssertEqual(String(decoding: buffer, as: UTF8.self), wire)
    }
    XCTAssertEqual(
      ActionCoding.typePath(of: ListAction.rows(.element(id: 1, action: .toggled))),
      "rows.element")
  }

  func testAnElementActionDecodesFromItsWireForm() throws {
    for (action, wire) in table {
      XCTAssertEqual(try ActionCoding.decode(ListAction.self, from: JSONParser.parse(wire)), action)
    }
    // A payload-free nested action may be its bare type, as at the top.
    XCTAssertEqual(
      try ActionCoding.decode(
        ListAction.self, from: ["type": "rows.element", "id": 3, "action": "toggled"]),
      .rows(.element(id: 3, action: .toggled)))
  }

  func testABadNestedActionIsRefusedNamingItsField() {
    assertFails(
      ["type": "rows.element", "id": 3], #"rows.element: missing field "action""#)
    assertFails(
      ["type": "rows.element", "action": ["type": "toggled"]], #"rows.element: missing field "id""#)
    assertFails(
      ["type": "rows.element", "id": "3", "action": ["type": "toggled"]],
      #"rows.element: field "id": expected an integer, got "3""#)
    assertFails(
      ["type": "rows.element", "id": 3, "action": ["type": "nope"]],
      #"rows.element: field "action": unknown action "nope": RowAction has no case "nope""#)
    assertFails(
      ["type": "rows.element", "id": 3, "action": ["type": "renamed"]],
      #"rows.element: field "action": renamed: missing field "title""#)
    assertFails(
      ["type": "rows.element", "id": 3, "action": ["type": "toggled", "extra": 1]],
      #"rows.element: field "action": toggled: unknown field "extra""#)
    assertFails(
      ["type": "rows.element", "id": 3, "action": 7],
      #"rows.element: field "action": an action must be an object or a type string, got 7"#)
    assertFails(
      ["type": "rows.element", "id": 3, "action": .null],
      #"rows.element: field "action": an action must be an object or a type string, got null"#)
    assertFails(
      ["type": "rows.element", "id": 3, "action": ["type": "toggled"], "title": "x"],
      #"rows.element: unknown field "title""#)
  }

  func testTheCasesDescribeTheNestedActionByItsCasesAndTheIDByItsType() {
    let rowActions = ActionCoding.wireSchema(of: RowAction.self)
    XCTAssertEqual(
      rowActions,
      [
        "oneOf": [
          ["enum": ["toggled", "menu.opened"]],
          [
            "type": "object", "properties": ["type": ["const": "toggled"]],
            "required": ["type"], "additionalProperties": false,
          ],
          [
            "type": "object",
            "properties": ["type": ["const": "renamed"], "title": ["type": "string"]],
            "required": ["type", "title"], "additionalProperties": false,
          ],
          [
            "type": "object", "properties": ["type": ["const": "menu.opened"]],
            "required": ["type"], "additionalProperties": false,
          ],
        ]
      ])
    XCTAssertEqual(
      ActionCoding.cases(of: ListAction.self),
      [
        ActionCase(
          type: "rows.element",
          payload: [.init("id", ["type": "integer"]), .init("action", rowActions)]),
        ActionCase(
          type: "tags.element",
          payload: [.init("id", ["type": "string"]), .init("action", rowActions)]),
        ActionCase(
          type: "maybe",
          payload: [
            .init("id", ["type": "integer"]),
            .init("action", ["oneOf": [["type": "null"], rowActions]]),
          ]),
        ActionCase(type: "clear", payload: []),
      ])
  }

  private func assertFails(
    _ wire: JSONValue, _ message: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertThrowsError(
      try ActionCoding.decode(ListAction.self, from: wire), file: file, line: line
    ) { error in
      XCTAssertEqual(
        (error as? ActionDecodingError)?.kind, .invalidAction, "\(error)", file: file, line: line)
      XCTAssertEqual((error as? ActionDecodingError)?.message, message, file: file, line: line)
    }
  }
}

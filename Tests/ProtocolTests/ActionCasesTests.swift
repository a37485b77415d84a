import ComposableCore
import JSON
import Protocol
import XCTest

/// The cases of an action type, read from its synthesized `Decodable`: what a store's
/// description is checked against.
final class ActionCasesTests: XCTestCase {
  private enum Child: ComposableAction {
    case tapped
    case answered(Int?)
    case moved(from: Int, to: Int)
  }

  private enum Parent: ComposableAction {
    case child(Child)
    case appeared
    case pair(Int, String)
    case loaded([String])
  }

  private enum Single: ComposableAction {
    case only
  }

  func testEveryCaseIsFoundWithItsFieldsAndChildrenAreSpelledOut() {
    let integer: JSONValue = ["type": "integer"]
    XCTAssertEqual(
      ActionCoding.cases(of: Parent.self),
      [
        ActionCase(type: "child.tapped", payload: []),
        ActionCase(
          type: "child.answered",
          payload: [.init("value", ["oneOf": [["type": "null"], integer]])]),
        ActionCase(type: "child.moved", payload: [.init("from", integer), .init("to", integer)]),
        ActionCase(type: "appeared", payload: []),
        ActionCase(type: "pair", payload: [.init("_0", integer), .init("_1", ["type": "string"])]),
        ActionCase(
          type: "loaded", payload: [.init("value", ["type": "array", "items": ["type": "string"]])]),
      ])
  }

  /// The walk that stops at each case's first value finds the same cases, children included.
  func testTheCaseTypesAreTheCasesWithoutTheirPayloads() {
    XCTAssertEqual(
      ActionCoding.caseTypes(of: Parent.self), ActionCoding.cases(of: Parent.self).map(\.type))
    XCTAssertEqual(ActionCoding.caseTypes(of: Single.self), ["only"])
  }

  func testAOneCaseEnumHasItsCase() {
    XCTAssertEqual(ActionCoding.cases(of: Single.self), [ActionCase(type: "only", payload: [])])
  }

  /// Every case found decodes from its wire form, and the wire form of a value of each case is
  /// what was found: the walk and the codec agree.
  func testTheCasesAreTheCodecsOwn() throws {
    let values: [Parent] = [
      .child(.tapped), .child(.answered(nil)), .child(.moved(from: 1, to: 2)), .appeared,
      .pair(1, "a"), .loaded([]),
    ]
    let cases = ActionCoding.cases(of: Parent.self)
    for (value, actionCase) in zip(values, cases) {
      let wire = ActionCoding.encode(value)
      XCTAssertEqual(wire["type"]?.stringValue, actionCase.type)
      XCTAssertEqual(
        Set(wire.objectValue?.keys.filter { $0 != "type" } ?? []), Set(actionCase.fields))
    }
  }
}

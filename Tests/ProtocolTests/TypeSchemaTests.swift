import JSON
import Protocol
import XCTest

final class TypeSchemaTests: XCTestCase {
  private struct Todo: Codable {
    var id: Int
    var title: String
    var note: String?
    var tags: [String]
    var done: Bool
  }

  private enum Kind: String, Codable, CaseIterable {
    case small, large
  }

  private struct Box: Codable {
    var kind: Kind
    var size: Double
    var todos: [Todo]
    var best: Todo?
  }

  /// Encodes only, as a fieldwise state does.
  private struct Screen: Encodable {
    var box: Box
    var count: Int
    var missing: Int?
  }

  private let todo: JSONValue = [
    "type": "object",
    "properties": [
      "id": ["type": "integer"], "title": ["type": "string"],
      "note": ["oneOf": [["type": "null"], ["type": "string"]]],
      "tags": ["type": "array", "items": ["type": "string"]], "done": ["type": "boolean"],
    ],
    "required": ["id", "title", "tags", "done"],
    "additionalProperties": false,
  ]

  func testAStructsMembersArrayOptionalsAndPrimitives() {
    XCTAssertEqual(TypeSchema.of(Todo.self), todo)
  }

  func testNestedTypesAndStringEnums() {
    XCTAssertEqual(
      TypeSchema.of(Box.self),
      [
        "type": "object",
        "properties": [
          "kind": ["enum": ["small", "large"]], "size": ["type": "number"],
          "todos": ["type": "array", "items": todo],
          "best": ["oneOf": [["type": "null"], todo]],
        ],
        "required": ["kind", "size", "todos"],
        "additionalProperties": false,
      ])
  }

  func testAnEncodableOnlyValueIsDescribedByItsMembersTypes() {
    let screen = Screen(
      box: Box(kind: .large, size: 1, todos: [], best: nil), count: 0, missing: nil)
    let schema = TypeSchema.of(value: screen)
    // Encoded, a member decoded if present is there as null when nil: `best`, and the todos'
    // `note`, are required in the state as the runtime writes it, though optional to decode.
    let encodedTodo: JSONValue = [
      "type": "object",
      "properties": [
        "id": ["type": "integer"], "title": ["type": "string"],
        "note": ["oneOf": [["type": "null"], ["type": "string"]]],
        "tags": ["type": "array", "items": ["type": "string"]], "done": ["type": "boolean"],
      ],
      "required": ["id", "title", "tags", "done", "note"],
      "additionalProperties": false,
    ]
    XCTAssertEqual(
      schema["properties"]?["box"],
      [
        "type": "object",
        "properties": [
          "kind": ["enum": ["small", "large"]], "size": ["type": "number"],
          "todos": ["type": "array", "items": encodedTodo],
          "best": ["oneOf": [["type": "null"], encodedTodo]],
        ],
        "required": ["kind", "size", "todos", "best"],
        "additionalProperties": false,
      ])
    XCTAssertEqual(schema["properties"]?["count"], ["type": "integer"])
    XCTAssertEqual(
      schema["properties"]?["missing"], ["oneOf": [["type": "null"], ["type": "integer"]]])
  }

  func testATypeMayStateItsOwnSchema() {
    XCTAssertEqual(TypeSchema.of(Stated.self), ["type": "string", "format": "uuid"])
  }
}

private struct Stated: Codable, JSONSchemaDescribed {
  var raw: String
  static let jsonSchema: JSONValue = ["type": "string", "format": "uuid"]
}

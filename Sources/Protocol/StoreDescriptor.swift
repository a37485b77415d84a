import ComposableCore
import JSON

/// What a store accepts and holds, for `describe` and for the JSON Schemas in `schemas/`:
/// both are generated from these values, so they cannot disagree.
public struct StoreDescriptor: Sendable {
  public let name: String
  public let summary: String
  public let actions: [ActionDescriptor]
  /// JSON Schema (2020-12) of the store's state.
  public let stateSchema: JSONValue

  public init(name: String, summary: String, actions: [ActionDescriptor], stateSchema: JSONValue) {
    self.name = name
    self.summary = summary
    self.actions = actions
    self.stateSchema = stateSchema
  }

  /// The `describe` entry of the store.
  public var json: JSONValue {
    .object([
      "name": .string(name),
      "summary": .string(summary),
      "actions": .array(actions.map(\.json)),
      "state": stateSchema,
    ])
  }

  /// JSON Schema of the store's actions in their canonical wire form: an object with a dotted
  /// `type` and the payload fields; payload-free actions may also be the bare type string.
  public var actionSchema: JSONValue {
    let bareTypes = actions.filter(\.payload.isEmpty).map { JSONValue.string($0.type) }
    return .object([
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "$id": .string(Self.schemaID(store: name, part: "actions")),
      "title": .string("\(name) actions"),
      "oneOf": .array([.object(["enum": .array(bareTypes)])] + actions.map(\.objectSchema)),
    ])
  }

  /// The state schema with its `$id`, as written to `schemas/stores/`.
  public var stateDocument: JSONValue {
    guard case .object(var object) = stateSchema else { return stateSchema }
    var document: JSONObject = [
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "$id": .string(Self.schemaID(store: name, part: "state")),
      "title": .string("\(name) state"),
    ]
    for (key, value) in object where document[key] == nil { document[key] = value }
    object = document
    return .object(object)
  }

  public static func schemaID(store: String, part: String) -> String {
    "urn:composable-actor:stores:\(store):\(part)"
  }

  public static let catalogSchemaID = "urn:composable-actor:stores"

  /// The schema `input.schema.json` and `output.schema.json` refer to for anything that depends
  /// on the store: its names, and the action and state schemas chosen by a line's `store`, so a
  /// new store needs no change to those two files.
  public static func catalogSchema(_ stores: [StoreDescriptor]) -> JSONValue {
    func byStore(_ property: String, part: String) -> JSONValue {
      .object([
        "allOf": .array(
          stores.map { store in
            [
              "if": ["properties": ["store": ["const": .string(store.name)]]],
              "then": [
                "properties": [
                  .init(property): ["$ref": .string(schemaID(store: store.name, part: part))]
                ]
              ],
            ]
          })
      ])
    }
    return [
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "$id": .string(catalogSchemaID),
      "title": "The stores",
      "$defs": [
        "name": ["type": "string", "enum": .array(stores.map { .string($0.name) })],
        "actionByStore": byStore("action", part: "actions"),
        "stateByStore": byStore("state", part: "state"),
      ],
    ]
  }
}

/// One action of a store.
public struct ActionDescriptor: Sendable {
  /// Who sends it in normal operation.
  public typealias Sender = ActionSender

  public struct Field: Equatable, Sendable {
    public let name: String
    public let schema: JSONValue
    public let isRequired: Bool

    public init(_ name: String, _ schema: JSONValue, required: Bool = true) {
      self.name = name
      self.schema = schema
      self.isRequired = required
    }
  }

  public let type: String
  public let sentBy: Sender
  public let summary: String
  public let payload: [Field]

  public init(_ type: String, sentBy: Sender, _ summary: String, payload: [Field] = []) {
    self.type = type
    self.sentBy = sentBy
    self.summary = summary
    self.payload = payload
  }

  var objectSchema: JSONValue {
    Self.objectSchema(type: type, description: summary, payload: payload)
  }

  /// The schema of an action object: its `type`, then its payload fields.
  static func objectSchema(type: String, description: String? = nil, payload: [Field])
    -> JSONValue
  {
    var properties: JSONObject = ["type": .object(["const": .string(type)])]
    for field in payload { properties[field.name] = field.schema }
    var schema: JSONObject = ["type": "object"]
    if let description { schema["description"] = .string(description) }
    schema["properties"] = .object(properties)
    schema["required"] = .array(
      ["type"] + payload.filter(\.isRequired).map { .string($0.name) })
    schema["additionalProperties"] = false
    return .object(schema)
  }

  var json: JSONValue {
    var object: JSONObject = [
      "type": .string(type),
      "sentBy": .string(sentBy.rawValue),
      "summary": .string(summary),
    ]
    var properties = JSONObject()
    for field in payload { properties[field.name] = field.schema }
    object["payload"] = .object([
      "type": "object",
      "properties": .object(properties),
      "required": .array(payload.filter(\.isRequired).map { .string($0.name) }),
      "additionalProperties": false,
    ])
    return .object(object)
  }
}

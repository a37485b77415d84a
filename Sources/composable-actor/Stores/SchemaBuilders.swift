import JSON
import SharedModels

/// Small builders for the JSON Schemas in the stores' descriptors.
enum Schema {
  static let integer: JSONValue = ["type": "integer"]
  static let string: JSONValue = ["type": "string"]
  static let boolean: JSONValue = ["type": "boolean"]

  /// A closed object schema whose every property is required.
  static func object(_ properties: JSONObject) -> JSONValue {
    [
      "type": "object",
      "properties": .object(properties),
      "required": .array(properties.keys.map(JSONValue.string)),
      "additionalProperties": false,
    ]
  }

  static func nullable(_ schema: JSONValue) -> JSONValue {
    ["oneOf": [["type": "null"], schema]]
  }

  static func array(of items: JSONValue) -> JSONValue {
    ["type": "array", "items": items]
  }

  /// `RequestFailure`: why a request gave no usable answer.
  static let requestFailure = object([
    "kind": [
      "enum": .array(RequestFailure.Kind.allCases.map { .string($0.rawValue) }),
      "description":
        "decoding: the response arrived but could not be read; every other kind: no usable response",
    ],
    "url": ["type": "string", "description": "the URL that failed"],
    "message": string,
  ])
}

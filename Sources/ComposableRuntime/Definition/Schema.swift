import JSON

/// Small builders for the JSON Schemas of a store's actions and state.
public enum Schema {
  /// Any integer.
  public static let integer: JSONValue = ["type": "integer"]
  /// Any string.
  public static let string: JSONValue = ["type": "string"]
  /// `true` or `false`.
  public static let boolean: JSONValue = ["type": "boolean"]

  /// A closed object schema whose every property is required.
  public static func object(_ properties: JSONObject) -> JSONValue {
    [
      "type": "object",
      "properties": .object(properties),
      "required": .array(properties.keys.map(JSONValue.string)),
      "additionalProperties": false,
    ]
  }

  /// `schema`'s values, or `null`.
  public static func nullable(_ schema: JSONValue) -> JSONValue {
    ["oneOf": [["type": "null"], schema]]
  }

  /// An array whose every element is one of `items`' values.
  public static func array(of items: JSONValue) -> JSONValue {
    ["type": "array", "items": items]
  }

  /// `RequestFailure`: why a request gave no usable answer.
  public static let requestFailure = object([
    "kind": [
      "enum": .array(RequestFailure.Kind.allCases.map { .string($0.rawValue) }),
      "description":
        "decoding: the response arrived but could not be read; every other kind: no usable response",
    ],
    "url": ["type": "string", "description": "the URL that failed"],
    "message": string,
  ])
}

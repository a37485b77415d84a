import JSON
import Protocol

/// A WebSocket message as the feature sees it. On the wire `{"type": "text", "text": "…"}` or
/// `{"type": "binary", "binary": "<base64>"}`; `type` tells them apart without looking for a
/// member, and may be left out on input (the form before it was written).
public enum SocketMessage: Equatable, Sendable {
  /// A text message.
  case text(String)
  /// A binary message's bytes.
  case binary([UInt8])

  /// The message's bytes: UTF-8 for text.
  public var bytes: [UInt8] {
    switch self {
    case .text(let text): Array(text.utf8)
    case .binary(let bytes): bytes
    }
  }

  /// How the screen lists it: text as is, binary as base64.
  public var displayText: String {
    switch self {
    case .text(let text): text
    case .binary(let bytes): Base64.encode(bytes)
    }
  }
}

extension SocketMessage: Codable {
  enum CodingKeys: String, CodingKey { case type, text, binary }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    // Taking one would silently drop the other. (`allKeys`, not `contains`: the schema probe
    // claims to contain every key, and lists none.)
    if container.allKeys.filter({ $0 != .type }).count > 1 {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription: "a message has \"text\" or \"binary\", not both"))
    }
    let type = try container.decodeIfPresent(String.self, forKey: .type)
    let key: CodingKeys =
      try container.decodeIfPresent(String.self, forKey: .text) != nil ? .text : .binary
    if let type, type != key.stringValue {
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: container,
        debugDescription: "a message of type \(JSONValue.string(type).excerpt) has "
          + "\"\(key.stringValue)\" (text: \"text\", binary: \"binary\")")
    }
    if key == .text {
      self = .text(try container.decode(String.self, forKey: .text))
      return
    }
    let encoded = try container.decode(String.self, forKey: .binary)
    guard let bytes = Base64.decode(encoded) else {
      throw DecodingError.dataCorruptedError(
        forKey: .binary, in: container,
        debugDescription: "not base64: \(JSONValue.string(encoded).excerpt)")
    }
    self = .binary(bytes)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .text(let text):
      try container.encode("text", forKey: .type)
      try container.encode(text, forKey: .text)
    case .binary(let bytes):
      try container.encode("binary", forKey: .type)
      try container.encode(Base64.encode(bytes), forKey: .binary)
    }
  }
}

// The hand-written Codable above is a choice between two members, which a walk of its
// decoding cannot tell from two optional ones.
extension SocketMessage: JSONSchemaDescribed {
  /// The schema of the wire form: a `TextMessage` or a `BinaryMessage` object.
  public static let jsonSchema: JSONValue = [
    "oneOf": [
      [
        "title": "TextMessage", "type": "object",
        "properties": ["type": ["const": "text"], "text": ["type": "string"]],
        "required": ["type", "text"], "additionalProperties": false,
      ],
      binarySchema,
    ]
  ]

  /// `{"type": "binary", "binary": "<base64>"}`, also how `receivedMessages` lists a binary
  /// message.
  public static let binarySchema: JSONValue = [
    "title": "BinaryMessage", "type": "object",
    "properties": [
      "type": ["const": "binary"], "binary": ["type": "string", "contentEncoding": "base64"],
    ],
    "required": ["type", "binary"], "additionalProperties": false,
  ]
}

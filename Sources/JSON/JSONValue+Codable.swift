/// `JSONValue` as a field of a `Codable` type: a state can hold free-form JSON (a message
/// payload, say). ``JSONValueEncoder`` and ``JSONValueDecoder`` take the value as it is; other
/// coders go through these implementations.
extension JSONValue: Codable {
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .null:
      var container = encoder.singleValueContainer()
      try container.encodeNil()
    case .bool(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .int(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .number(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .string(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .array(let elements):
      var container = encoder.unkeyedContainer()
      for element in elements {
        try container.encode(element)
      }
    case .object(let object):
      var container = encoder.container(keyedBy: JSONKey.self)
      for (key, value) in object {
        try container.encode(value, forKey: JSONKey(stringValue: key))
      }
    }
  }

  /// Tries the container kinds in turn; scalars in the order that keeps integers exact.
  public init(from decoder: any Decoder) throws {
    if let container = try? decoder.container(keyedBy: JSONKey.self) {
      var object = JSONObject()
      for key in container.allKeys {
        object[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
      }
      self = .object(object)
    } else if var container = try? decoder.unkeyedContainer() {
      var elements: [JSONValue] = []
      while !container.isAtEnd {
        elements.append(try container.decode(JSONValue.self))
      }
      self = .array(elements)
    } else {
      let container = try decoder.singleValueContainer()
      if container.decodeNil() {
        self = .null
      } else if let value = try? container.decode(Bool.self) {
        self = .bool(value)
      } else if let value = try? container.decode(Int.self) {
        self = .int(value)
      } else if let value = try? container.decode(Double.self) {
        self = .number(value)
      } else {
        self = .string(try container.decode(String.self))
      }
    }
  }
}

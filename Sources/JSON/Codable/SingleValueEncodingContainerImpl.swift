/// Writes the value of a type that encodes as one scalar (or one nested value).
struct SingleValueEncodingContainerImpl: SingleValueEncodingContainer {
  let encoder: ValueEncoder

  var codingPath: [any CodingKey] { encoder.codingPath }

  mutating func encodeNil() { encoder.result = .value(.null) }
  mutating func encode(_ value: Bool) { encoder.result = .value(.bool(value)) }
  mutating func encode(_ value: String) { encoder.result = .value(.string(value)) }
  mutating func encode(_ value: Double) { encoder.result = .value(JSONValue(encoding: value)) }
  mutating func encode(_ value: Float) { encoder.result = .value(JSONValue(encoding: value)) }
  mutating func encode(_ value: Int) { encoder.result = .value(.int(value)) }
  mutating func encode(_ value: Int8) throws {
    encoder.result = .value(try JSONValue(encoding: value, path: codingPath))
  }
  mutating func encode(_ value: Int16) throws {
    encoder.result = .value(try JSONValue(encoding: value, path: codingPath))
  }
  mutating func encode(_ value: Int32) throws {
    encoder.result = .value(try JSONValue(encoding: value, path: codingPath))
  }
  mutating func encode(_ value: Int64) throws {
    encoder.result = .value(try JSONValue(encoding: value, path: codingPath))
  }
  mutating func encode(_ value: UInt) throws {
    encoder.result = .value(try JSONValue(encoding: value, path: codingPath))
  }
  mutating func encode(_ value: UInt8) throws {
    encoder.result = .value(try JSONValue(encoding: value, path: codingPath))
  }
  mutating func encode(_ value: UInt16) throws {
    encoder.result = .value(try JSONValue(encoding: value, path: codingPath))
  }
  mutating func encode(_ value: UInt32) throws {
    encoder.result = .value(try JSONValue(encoding: value, path: codingPath))
  }
  mutating func encode(_ value: UInt64) throws {
    encoder.result = .value(try JSONValue(encoding: value, path: codingPath))
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    encoder.result = .value(try encoder.encodeCurrent(value))
  }
}

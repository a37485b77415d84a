import ComposableCore
import JSON

/// The container an action enum opens first: its only key is the case named by the path.
struct CaseDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: ActionDecoder
  let key: Key
  /// The number of case names used, this one included.
  let level: Int

  var codingPath: [any CodingKey] { [] }
  var allKeys: [Key] { [key] }

  func contains(_ key: Key) -> Bool {
    key.stringValue == self.key.stringValue
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    guard contains(key) else { throw unexpected(key) }
    return KeyedDecodingContainer(
      PayloadDecodingContainer<NestedKey>(decoder: decoder, level: level))
  }

  private func unexpected(_ key: Key) -> ActionDecodingError {
    decoder.invalidAction(
      "the action read \"\(key.stringValue)\" directly; use synthesized Codable")
  }

  func decodeNil(forKey key: Key) throws -> Bool { throw unexpected(key) }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw unexpected(key) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { throw unexpected(key) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw unexpected(key) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw unexpected(key) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { throw unexpected(key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw unexpected(key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw unexpected(key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw unexpected(key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { throw unexpected(key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw unexpected(key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw unexpected(key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw unexpected(key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw unexpected(key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw unexpected(key) }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { throw unexpected(key) }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw unexpected(key)
  }

  func superDecoder() throws -> any Decoder {
    throw decoder.invalidAction("the action asked for a super decoder; use synthesized Codable")
  }

  func superDecoder(forKey key: Key) throws -> any Decoder { throw unexpected(key) }
}

/// The associated values of one case: fields of the wire object, or, for a `ComposableAction`
/// under `_0`, the child action named by the rest of the path. Any other `ComposableAction` is a
/// field holding that action in its own wire form.
///
/// Every `decodeIfPresent` overload is implemented: a field for an optional value must still be
/// present (as `null` when nil), because the encoder always writes it and a strict protocol
/// rejects what it would never send.
struct PayloadDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: ActionDecoder
  /// The number of case names used, this case included.
  let level: Int

  var codingPath: [any CodingKey] { [] }

  var allKeys: [Key] {
    decoder.fields.keys.compactMap { name in
      name == "type" ? nil : Key(stringValue: name == "value" ? "_0" : name)
    }
  }

  func contains(_ key: Key) -> Bool {
    (try? decoder.field(for: key.stringValue, level: level)) != nil
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    try decoder.decodeNil(for: key.stringValue, level: level)
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try decoder.decodeField(Bool.self, for: key.stringValue, level: level)
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try decoder.decodeField(String.self, for: key.stringValue, level: level)
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try decoder.decodeField(Double.self, for: key.stringValue, level: level)
  }

  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try decoder.decodeField(Float.self, for: key.stringValue, level: level)
  }

  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try decoder.decodeField(Int.self, for: key.stringValue, level: level)
  }

  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
    try decoder.decodeField(Int8.self, for: key.stringValue, level: level)
  }

  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
    try decoder.decodeField(Int16.self, for: key.stringValue, level: level)
  }

  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
    try decoder.decodeField(Int32.self, for: key.stringValue, level: level)
  }

  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
    try decoder.decodeField(Int64.self, for: key.stringValue, level: level)
  }

  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
    try decoder.decodeField(UInt.self, for: key.stringValue, level: level)
  }

  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
    try decoder.decodeField(UInt8.self, for: key.stringValue, level: level)
  }

  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
    try decoder.decodeField(UInt16.self, for: key.stringValue, level: level)
  }

  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
    try decoder.decodeField(UInt32.self, for: key.stringValue, level: level)
  }

  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
    try decoder.decodeField(UInt64.self, for: key.stringValue, level: level)
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decoder.value(T.self, key: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try decoder.decodeField(Bool?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try decoder.decodeField(String?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try decoder.decodeField(Double?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try decoder.decodeField(Float?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
    try decoder.decodeField(Int?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
    try decoder.decodeField(Int8?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try decoder.decodeField(Int16?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try decoder.decodeField(Int32?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try decoder.decodeField(Int64?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
    try decoder.decodeField(UInt?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try decoder.decodeField(UInt8?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try decoder.decodeField(UInt16?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try decoder.decodeField(UInt32?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try decoder.decodeField(UInt64?.self, for: key.stringValue, level: level)
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try decoder.valueIfPresent(T.self, key: key.stringValue, level: level)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw unexpected(key)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw unexpected(key)
  }

  func superDecoder() throws -> any Decoder {
    throw decoder.invalidAction("the action asked for a super decoder; use synthesized Codable")
  }

  func superDecoder(forKey key: Key) throws -> any Decoder { throw unexpected(key) }

  private func unexpected(_ key: Key) -> ActionDecodingError {
    decoder.invalidAction(
      "the action opened a container for \"\(key.stringValue)\"; use synthesized Codable")
  }
}

/// A keyed container that walks a type rather than reads data: every optional member, a
/// primitive one included, goes through ``decodeOptional(_:forKey:)``.
///
/// The standard library gives each primitive type's `decodeIfPresent` a default that asks
/// `decodeNil` and then decodes the member as required, so a walk would never learn that the
/// member is optional. These overloads send them where the generic one goes.
protocol ProbingContainer: KeyedDecodingContainerProtocol {
  func decodeOptional<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T?
}

extension ProbingContainer {
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try decodeOptional(T.self, forKey: key)
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try decodeOptional(type, forKey: key)
  }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try decodeOptional(type, forKey: key)
  }
}

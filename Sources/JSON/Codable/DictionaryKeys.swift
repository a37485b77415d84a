/// Recognizes the keyed containers that `Dictionary` encodes itself into.
///
/// A dictionary's entries come out in hash order, which is seeded per process, so the same
/// state would serialize differently from one run to the next. The encoder sorts such objects.
/// `Dictionary` uses a private coding-key type for its container; encoding one dictionary at
/// start-up reveals that type, and afterwards recognizing a dictionary costs one metadata
/// comparison per container. (The obvious alternative, a dynamic cast of every nested value to
/// a protocol that `Dictionary` conforms to, measured about 60 ns per value.)
enum DictionaryKeys {
  static func isDictionaryKey(_ keyType: any CodingKey.Type) -> Bool {
    keyType == dictionaryKeyType
  }

  private static let dictionaryKeyType: (any CodingKey.Type)? = {
    let probe = KeyTypeProbe()
    try? ["": 0].encode(to: probe)
    return probe.keyType
  }()
}

/// An encoder that only records the key type of the first keyed container asked of it.
private final class KeyTypeProbe: Encoder {
  var keyType: (any CodingKey.Type)?
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    keyType = keyType ?? Key.self
    return KeyedEncodingContainer(
      KeyedValueEncodingContainer(
        encoder: ValueEncoder(codingPath: []), box: ObjectBox(), depth: 0, keys: []))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    ValueEncoder(codingPath: []).unkeyedContainer()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    ValueEncoder(codingPath: []).singleValueContainer()
  }
}

import JSON

/// How a scenario gives the content of a data file or of an HTTP body: JSON, where a string is
/// the text itself. Read back, content that is not JSON is that text.
enum ScenarioContent {
  /// The bytes `content` stands for: a string as it is, any other JSON serialized.
  static func bytes(_ content: JSONValue) -> [UInt8] {
    content.stringValue.map { Array($0.utf8) } ?? content.serialized
  }

  /// `bytes` as a scenario writes them: their JSON, or their text when they are not JSON.
  static func value(_ bytes: [UInt8]) -> JSONValue {
    (try? JSONParser.parse(bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
  }
}

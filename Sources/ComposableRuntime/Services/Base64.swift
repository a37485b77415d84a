/// RFC 4648 base64 with padding, so binary frames can travel in JSON without Foundation.
enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  static func encode(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let chunk = bytes[index..<min(index + 3, bytes.count)]
      var bits = 0
      for (offset, byte) in chunk.enumerated() { bits |= Int(byte) << (16 - 8 * offset) }
      for position in 0..<4 {
        output.append(
          position <= chunk.count ? alphabet[(bits >> (18 - 6 * position)) & 63] : UInt8(ascii: "=")
        )
      }
      index += 3
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// `nil` unless `text` is canonical padded base64.
  static func decode(_ text: String) -> [UInt8]? {
    let characters = Array(text.utf8)
    guard characters.count.isMultiple(of: 4) else { return nil }
    var output: [UInt8] = []
    output.reserveCapacity(characters.count / 4 * 3)
    for start in stride(from: 0, to: characters.count, by: 4) {
      var bits = 0
      var padding = 0
      for (offset, character) in characters[start..<start + 4].enumerated() {
        if character == UInt8(ascii: "=") {
          guard start + 4 == characters.count, offset >= 2 else { return nil }
          padding += 1
          continue
        }
        guard padding == 0, let value = alphabet.firstIndex(of: character) else { return nil }
        bits |= value << (18 - 6 * offset)
      }
      for offset in 0..<(3 - padding) { output.append(UInt8((bits >> (16 - 8 * offset)) & 255)) }
    }
    return output
  }
}

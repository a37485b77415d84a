import ExtrasBase64

/// RFC 4648 base64 with padding, so binary frames can travel in JSON without Foundation.
enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// swift-extras-base64's encoder: every binary frame received is encoded for its action line,
  /// and a table-driven loop writing into the string's own storage takes a tenth of the time
  /// of one appending to an array.
  static func encode(_ bytes: [UInt8]) -> String {
    ExtrasBase64.Base64.encodeToString(bytes: bytes)
  }

  /// `nil` unless `text` is canonical padded base64. Our own: swift-extras-base64 1.2.0's
  /// decoder takes a `=` between two characters ("Zm=v") for padding.
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

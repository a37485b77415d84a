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
  /// decoder takes a `=` between two characters ("Zm=v") for padding. A table lookup per
  /// character: every binary message a host sends is decoded here, 87 KB of text for a 64 KiB
  /// frame, and a search of the alphabet per character made that the most of a debug build's
  /// time (seconds a message under AddressSanitizer).
  static func decode(_ text: String) -> [UInt8]? {
    var text = text
    return text.withUTF8 { characters -> [UInt8]? in
      let count = characters.count
      guard count.isMultiple(of: 4) else { return nil }
      var padding = 0
      if count > 0, characters[count - 1] == UInt8(ascii: "=") {
        padding = characters[count - 2] == UInt8(ascii: "=") ? 2 : 1
      }
      var output: [UInt8] = []
      output.reserveCapacity(count / 4 * 3)
      var start = 0
      while start < count {
        let used = start + 4 == count ? 4 - padding : 4
        var bits = 0
        for offset in 0..<used {
          let value = values[Int(characters[start + offset])]
          guard value != notInAlphabet else { return nil }
          bits |= Int(value) << (18 - 6 * offset)
        }
        for offset in 0..<(used - 1) { output.append(UInt8((bits >> (16 - 8 * offset)) & 255)) }
        start += 4
      }
      return output
    }
  }

  private static let notInAlphabet: UInt8 = 255

  /// Each byte's value in the alphabet, `notInAlphabet` for the other bytes (`=` among them).
  private static let values: [UInt8] = {
    var values = [UInt8](repeating: notInAlphabet, count: 256)
    for (value, character) in alphabet.enumerated() { values[Int(character)] = UInt8(value) }
    return values
  }()
}

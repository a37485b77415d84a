import ComposableTestSupport
@_spi(Hosting) import JSON
import XCTest

final class ByteScanTests: XCTestCase {
  /// The word-at-a-time scan must stop exactly where a byte-by-byte scan does, wherever the
  /// first special byte falls in a word and whatever follows it (the bit trick can flag bytes
  /// after a true match; those must not move the answer).
  func testPlainASCIIEndMatchesAByteByByteScan() {
    var generator = SeededGenerator(seed: 7)
    // Mostly plain letters, with each kind of byte that ends a plain run mixed in.
    let alphabet: [UInt8] =
      Array("abcXYZ 09~".utf8) + [0x00, 0x1F, 0x20, 0x21, 0x22, 0x5C, 0x7F, 0x80, 0xC3, 0xFF]
    for _ in 0..<20_000 {
      let count = Int.random(in: 0...40, using: &generator)
      let plainRun = Int.random(in: 0...count, using: &generator)
      let bytes = (0..<count).map { index in
        index < plainRun
          ? UInt8(ascii: "a") : alphabet.randomElement(using: &generator)!
      }
      let start = Int.random(in: 0...count, using: &generator)
      let expected =
        bytes[start...].firstIndex { byte in
          byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
        } ?? count
      let found = bytes.withUnsafeBufferPointer { buffer in
        ByteScan.plainASCIIEnd(
          buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!, from: start, count: count)
      }
      XCTAssertEqual(found, expected, "\(bytes) from \(start)")
    }
  }
}

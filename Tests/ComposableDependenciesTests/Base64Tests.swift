import XCTest

@testable import ComposableDependencies

final class Base64Tests: XCTestCase {
  func testBase64FollowsRFC4648() {
    let vectors = [
      "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
      "foobar": "Zm9vYmFy",
    ]
    for (plain, encoded) in vectors {
      XCTAssertEqual(Base64.encode(Array(plain.utf8)), encoded)
      XCTAssertEqual(Base64.decode(encoded), Array(plain.utf8))
    }
    XCTAssertNil(Base64.decode("Zm9"))
    XCTAssertNil(Base64.decode("Z=9v"))
    XCTAssertNil(Base64.decode("Zm9v!A=="))
    for text in ["Zm=v", "Z===", "====", "Zg=A", "Zg==Zg==", "=Zg=", "Zm9v\n"] {
      XCTAssertNil(Base64.decode(text), text)
    }
  }

  /// Every length's padding round-trips, and a text with one character changed to one outside
  /// the alphabet, or to `=` anywhere but the padding, is refused.
  func testDecodesWhatTheEncoderWritesAndRefusesAnyOtherCharacter() {
    var generator = SystemRandomNumberGenerator()
    let outside = (0...255).map(UInt8.init).filter {
      !"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.contains($0)
    }
    for length in 0..<200 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let text = Base64.encode(bytes)
      XCTAssertEqual(Base64.decode(text), bytes)
      guard !text.isEmpty else { continue }
      var characters = Array(text.utf8)
      let position = Int.random(in: 0..<characters.count, using: &generator)
      let padding = characters.reversed().prefix { $0 == UInt8(ascii: "=") }.count
      characters[position] = outside.randomElement(using: &generator)!
      if characters[position] == UInt8(ascii: "="), position >= characters.count - padding {
        continue
      }
      XCTAssertNil(Base64.decode(String(decoding: characters, as: UTF8.self)), text)
    }
  }
}

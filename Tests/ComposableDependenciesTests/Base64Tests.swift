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
  }
}

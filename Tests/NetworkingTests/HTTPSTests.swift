import Foundation
import Networking
import XCTest

final class HTTPSTests: XCTestCase {
  func testCAFileMakesTheServerTrusted() throws {
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    let arguments = ["--tls-cert", certificates.cert, "--tls-key", certificates.key]
    let configuration = HTTPConfiguration(caFile: certificates.ca)
    try withHTTPFixture(serverArguments: arguments, configuration: configuration) { fixture in
      XCTAssertTrue(fixture.base.hasPrefix("https://"), fixture.base)
      let response = try await fixture.client.get(fixture.url("/todos/3"), timeout: .seconds(5))
      XCTAssertEqual(response.status, 200)
      // A second request reuses the TLS connection.
      _ = try await fixture.client.get(fixture.url("/todos/4"), timeout: .seconds(5))
      let log = try await fixture.requests()
      XCTAssertEqual(Set(log.map(\.connection)).count, 1, "\(log)")
    }
  }

  func testUntrustedServerThrowsTLSFailure() throws {
    let certificates = try TestCertificates.make()
    defer { certificates.remove() }
    let arguments = ["--tls-cert", certificates.cert, "--tls-key", certificates.key]
    try withHTTPFixture(serverArguments: arguments) { fixture in
      let url = fixture.url("/todos/3")
      let error = await httpError { try await fixture.client.get(url, timeout: .seconds(5)) }
      XCTAssertEqual(error?.kind, .tls)
      XCTAssertTrue(error?.message.contains("certificate") ?? false, error?.message ?? "")
    }
  }
}

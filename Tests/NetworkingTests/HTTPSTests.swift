import Foundation
import Networking
import XCTest

final class HTTPSTests: XCTestCase {
  func testCAFileMakesTheServerTrusted() throws {
    let certificates = try makeCertificates()
    defer { try? FileManager.default.removeItem(at: certificates.directory) }
    let arguments = ["--tls-cert", certificates.certFile, "--tls-key", certificates.keyFile]
    let configuration = HTTPConfiguration(caFile: certificates.caFile)
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
    let certificates = try makeCertificates()
    defer { try? FileManager.default.removeItem(at: certificates.directory) }
    let arguments = ["--tls-cert", certificates.certFile, "--tls-key", certificates.keyFile]
    try withHTTPFixture(serverArguments: arguments) { fixture in
      let url = fixture.url("/todos/3")
      let error = await httpError { try await fixture.client.get(url, timeout: .seconds(5)) }
      XCTAssertEqual(error?.kind, .tls)
      XCTAssertTrue(error?.message.contains("certificate") ?? false, error?.message ?? "")
    }
  }
}

/// A throw-away CA and server certificate from `Tests/servers/certs.py`, in a new directory.
private func makeCertificates() throws -> (
  directory: URL, caFile: String, certFile: String, keyFile: String
) {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("http-tests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [
    "python3", "-c",
    "import sys, pathlib; sys.path.insert(0, sys.argv[1]); import certs; "
      + "certs.make_certificates(pathlib.Path(sys.argv[2]))",
    PythonServer.serversDirectory.path, directory.path,
  ]
  try process.run()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw ServerError("certs.py failed with status \(process.terminationStatus)")
  }
  return (
    directory,
    directory.appendingPathComponent("ca.pem").path,
    directory.appendingPathComponent("server.pem").path,
    directory.appendingPathComponent("server.key").path
  )
}

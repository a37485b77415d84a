import Foundation
import XCTest

/// A test peer from `Tests/servers/`, run as a child process on 127.0.0.1.
///
/// Every server script prints one JSON object on stdout once it listens (at least `port`), and
/// exits when its stdin closes, so a crashed test run leaves no server behind.
final class PythonServer {
  let ready: [String: Any]
  private let process = Process()
  private let stdin = Pipe()

  var port: Int { ready["port"] as? Int ?? 0 }

  /// Starts `Tests/servers/<script>` with `arguments` and waits for its ready line.
  init(script: String, arguments: [String] = [], timeout: TimeInterval = 20) throws {
    let stdout = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      ["python3", Self.serversDirectory.appendingPathComponent(script).path]
      + arguments
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    let line = try Self.readLine(from: stdout.fileHandleForReading, timeout: timeout)
    guard
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
      object["port"] is Int
    else {
      process.terminate()
      throw ServerError("\(script) printed no ready line with a port: \(line)")
    }
    ready = object
  }

  deinit {
    try? stdin.fileHandleForWriting.close()
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
  }

  static let serversDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("servers")

  private static func readLine(from handle: FileHandle, timeout: TimeInterval) throws -> String {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout)
    var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
    while Date() < deadline {
      guard poll(&descriptor, 1, 100) > 0 else { continue }
      var byte: UInt8 = 0
      guard read(handle.fileDescriptor, &byte, 1) == 1 else { break }
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    throw ServerError("no ready line within \(timeout) s (read so far: \(bytes.count) bytes)")
  }
}

struct ServerError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

import CLibUV
import Foundation
import XCTest

/// A child process started with `posix_spawnp` and reaped with `waitpid`.
///
/// Foundation's `Process.waitUntilExit` spins a run loop until it sees the child's exit, and on
/// Linux that wait is known to hang for good now and then (swift-corelibs-foundation); one such
/// hang held a CI run until it timed out. `waitpid` with a deadline cannot hang: a child that
/// outlives it is killed.
final class ChildProcess {
  let pid: pid_t
  /// The write end of the child's stdin, when it was asked for.
  private(set) var stdinDescriptor: Int32?
  /// The read end of the child's stdout, when it was asked for.
  private(set) var stdoutDescriptor: Int32?
  private var status: Int32?

  /// Starts `arguments[0]`, found on `PATH`. The child's stderr is ours, so that what a peer
  /// logs shows in the test output.
  init(_ arguments: [String], pipeStdin: Bool = false, pipeStdout: Bool = false) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // Both ends are close-on-exec, so no other child holds a copy that would keep a pipe open.
    let stdinPipe = pipeStdin ? try Self.makePipe() : nil
    let stdoutPipe = pipeStdout ? try Self.makePipe() : nil
    if let stdinPipe { posix_spawn_file_actions_adddup2(&actions, stdinPipe.read, 0) }
    if let stdoutPipe { posix_spawn_file_actions_adddup2(&actions, stdoutPipe.write, 1) }
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid = pid_t()
    let result = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
    for descriptor in [stdinPipe?.read, stdoutPipe?.write].compactMap({ $0 }) { close(descriptor) }
    guard result == 0 else {
      for descriptor in [stdinPipe?.write, stdoutPipe?.read].compactMap({ $0 }) {
        close(descriptor)
      }
      throw ServerError("cannot start \(arguments[0]): \(String(cString: strerror(result)))")
    }
    self.pid = pid
    stdinDescriptor = stdinPipe?.write
    stdoutDescriptor = stdoutPipe?.read
  }

  deinit {
    closeStdin()
    if let stdoutDescriptor { close(stdoutDescriptor) }
    if status == nil {
      kill(pid, SIGKILL)
      _ = wait(timeout: 0)
    }
  }

  func closeStdin() {
    if let stdinDescriptor { close(stdinDescriptor) }
    stdinDescriptor = nil
  }

  /// Waits up to `timeout` seconds for the child to exit, then kills it, and returns its exit
  /// status (128 + the signal's number if a signal ended it).
  @discardableResult
  func wait(timeout: TimeInterval) -> Int32 {
    if let status { return status }
    let deadline = Date().addingTimeInterval(timeout)
    var raw: Int32 = 0
    while waitpid(pid, &raw, WNOHANG) == 0 {
      if Date() >= deadline {
        kill(pid, SIGKILL)
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        break
      }
      usleep(10_000)
    }
    let signal = raw & 0x7f
    let exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    status = exitStatus
    return exitStatus
  }

  /// Reads the child's stdout up to the first newline, for up to `timeout` seconds.
  func readLine(timeout: TimeInterval) throws -> String {
    guard let stdoutDescriptor else { throw ServerError("the child's stdout is not a pipe") }
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout)
    var descriptor = pollfd(fd: stdoutDescriptor, events: Int16(POLLIN), revents: 0)
    while Date() < deadline {
      guard poll(&descriptor, 1, 100) > 0 else { continue }
      var byte: UInt8 = 0
      guard read(stdoutDescriptor, &byte, 1) == 1 else { break }
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    throw ServerError("no line within \(timeout) s (read so far: \(bytes.count) bytes)")
  }

  private static func makePipe() throws -> (read: Int32, write: Int32) {
    var descriptors: [uv_file] = [0, 0]
    // libuv makes both ends close-on-exec atomically (Glibc's Swift overlay lacks pipe2).
    let result = uv_pipe(&descriptors, 0, 0)
    guard result == 0 else { throw ServerError("uv_pipe: \(String(cString: uv_strerror(result)))") }
    return (descriptors[0], descriptors[1])
  }
}

/// A test peer from `Tests/servers/`, run as a child process on 127.0.0.1.
///
/// Every server script prints one JSON object on stdout once it listens (at least `port`), and
/// exits when its stdin closes, so a crashed test run leaves no server behind.
final class PythonServer {
  let ready: [String: Any]
  private let process: ChildProcess

  var port: Int { ready["port"] as? Int ?? 0 }

  /// Starts `Tests/servers/<script>` with `arguments` and waits for its ready line.
  init(script: String, arguments: [String] = [], timeout: TimeInterval = 20) throws {
    process = try ChildProcess(
      ["python3", Self.serversDirectory.appendingPathComponent(script).path] + arguments,
      pipeStdin: true, pipeStdout: true)
    let line = try process.readLine(timeout: timeout)
    guard
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
      object["port"] is Int
    else {
      throw ServerError("\(script) printed no ready line with a port: \(line)")
    }
    ready = object
  }

  deinit {
    process.closeStdin()
    process.wait(timeout: 10)
  }

  static let serversDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("servers")
}

/// A throw-away CA and a server certificate for 127.0.0.1 and localhost, made by
/// `Tests/servers/certs.py` in a new directory.
struct TestCertificates {
  let directory: URL
  var ca: String { directory.appendingPathComponent("ca.pem").path }
  var cert: String { directory.appendingPathComponent("server.pem").path }
  var key: String { directory.appendingPathComponent("server.key").path }

  static func make() throws -> TestCertificates {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("test-certs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let status = try ChildProcess([
      "python3", "-c",
      "import sys, pathlib; sys.path.insert(0, sys.argv[1]); import certs; "
        + "certs.make_certificates(pathlib.Path(sys.argv[2]))",
      PythonServer.serversDirectory.path, directory.path,
    ]).wait(timeout: 60)
    guard status == 0 else { throw ServerError("certs.py failed with status \(status)") }
    return TestCertificates(directory: directory)
  }

  func remove() {
    try? FileManager.default.removeItem(at: directory)
  }
}

struct ServerError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

@_spi(Hosting) import ComposableRuntime
@_spi(Hosting) import Protocol
import XCTest

/// A named instance sees the process's services with files and sockets of its own.
final class InstanceServicesTests: XCTestCase {
  func testAKeyIsOneFileNameThatNoOtherKeyShares() throws {
    let names = try ["user-42", "a/b", "..", "a b", "%41", "A", "é", "\u{1D11E}"].map {
      try InstanceKey(validating: $0).fileName
    }
    XCTAssertEqual(
      names, ["user-42", "a%2Fb", "%2E%2E", "a%20b", "%2541", "A", "%C3%A9", "%F0%9D%84%9E"])
    XCTAssertEqual(Set(names).count, names.count)
  }

  func testALongKeyIsCutAndEndsWithAHashOfTheWholeKey() throws {
    let long = try InstanceKey(validating: String(repeating: "/", count: 255) + "a")
    let other = try InstanceKey(validating: String(repeating: "/", count: 255) + "b")
    XCTAssertEqual(long.fileName.utf8.count, 180 + 1 + 16)
    XCTAssertTrue(long.fileName.hasPrefix(String(repeating: "%2F", count: 60) + "~"))
    XCTAssertNotEqual(long.fileName, other.fileName)
    XCTAssertEqual(long.fileName, try InstanceKey(validating: long.value).fileName)
    // A cut that would end inside a `%XX` ends before it.
    let odd = try InstanceKey(validating: "a" + String(repeating: "/", count: 255))
    XCTAssertTrue(odd.fileName.hasPrefix("a" + String(repeating: "%2F", count: 59) + "~"))
    // A key of letters alone is its own file name up to 200 bytes, and cut past them.
    let letters = try InstanceKey(validating: String(repeating: "a", count: 201))
    XCTAssertEqual(letters.fileName.utf8.count, 180 + 1 + 16)
    XCTAssertEqual(
      try InstanceKey(validating: String(repeating: "a", count: 200)).fileName,
      String(repeating: "a", count: 200))
  }

  func testAnInstancesLogLinesNameItsKey() throws {
    let loop = try EventLoop()
    defer { try? loop.shutdown() }
    let services = Services(
      http: HTTPService(timeout: .seconds(1)) { _, _ in throw CancellationError() },
      webSocket: WebSocketService(
        open: { _, _, _ in AsyncStream { $0.finish() } },
        receive: { _ in AsyncStream { $0.finish() } }, send: { _, _ in }, sendPing: { _ in }),
      threadPool: loop.threadPool, clock: ContinuousClock(), random: SeededRandom(seed: 1),
      now: { 0 }, dataDirectory: "/data",
      log: Logger(label: "test") { StreamLogHandler.standardError(label: $0) })
    let alice = services.about(try InstanceKey(validating: "alice"))
    XCTAssertEqual(alice.log.metadataProvider?.get(), ["instance": "alice"])
    XCTAssertEqual(alice.dataDirectory, "/data/instances/alice")
    XCTAssertNil(services.about(nil).log.metadataProvider?.get()["instance"])
  }
}

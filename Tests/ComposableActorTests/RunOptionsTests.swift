import ArgumentParser
import ComposableTestSupport
import PrimesDefinition
@_spi(Hosting) import Protocol
import WebSocketDefinition
import XCTest

@testable import ComposableActor

/// `RunOptions(commonArguments:)`, which the binary reads hosts' arguments with, against the
/// argument parser that reads everything else.
final class RunOptionsTests: XCTestCase {
  override func setUp() {
    ComposableActorCommand.catalog = StoreCatalog([PrimesStore.self, WebSocketStore.self])
  }

  /// What the parser reads `arguments` as, when it reads them as `run`.
  private func parsed(_ arguments: [String]) -> RunOptions? {
    (try? ComposableActorCommand.parseAsRoot(arguments) as? ComposableActorCommand.Run)?.options
  }

  func testHostsArgumentsReadAsTheParserReadsThem() throws {
    let arguments = [
      "run", "--websocket-url", "ws://127.0.0.1:9000/echo", "--linger", "0.5", "--trace",
      "effects", "--emit=ticks", "--seed", "7", "--allow-effect-actions", "--max-received", "3",
    ]
    let options = try XCTUnwrap(RunOptions(commonArguments: arguments[...]))
    XCTAssertNoThrow(try options.validate())
    var expected = RunOptions()
    expected.linger = 0.5
    expected.trace = [.effects]
    expected.emit = .ticks
    expected.seed = 7
    expected.allowEffectActions = true
    expected.storeArguments = [
      "--websocket-url", "ws://127.0.0.1:9000/echo", "--max-received", "3",
    ]
    XCTAssertEqual(options, expected)
    XCTAssertEqual(parsed(arguments), expected)
    // Without `run`, the parser's default command.
    XCTAssertEqual(RunOptions(commonArguments: arguments.dropFirst()), expected)
  }

  func testLeavesToTheParserWhatItDoesNotRead() {
    for arguments in [
      ["--help"], ["run", "-h"], ["help"], ["--version"], ["mcp"], ["run", "--linger"],
      ["run", "--linger", "-1"], ["run", "--linger", "soon"],
      ["run", "--seed", "1", "--seed", "2"],
      ["run", "--"], ["run", "--websocket-url=ws://x"], ["run", "--call-wait", "1"],
      ["run", "--allow-effect-actions=true"], ["run", "--record", "mcp"], ["run", "-x"],
      ["run", "--data-dir="],
    ] {
      XCTAssertNil(RunOptions(commonArguments: arguments[...]), "\(arguments)")
    }
  }

  /// Random command lines from run's options, the stores' options and what neither is, in
  /// both spellings and with values good and bad: whatever the fast reading accepts and passes
  /// the checks, the parser reads the same.
  func testAgreesWithTheParserOnRandomCommandLines() {
    let values: [String: [String]] = [
      "max-line-bytes": ["64", "100000", "12", "x"], "linger": ["0", "0.5", "1e3", "100000", "a"],
      "emit": ["actions", "ticks", "bogus"], "trace": ["effects", "nope"],
      "log-level": ["trace", "info", "loud"], "data-dir": ["/tmp/data", "data"],
      "max-depth": ["1", "64", "0", "20000"], "ca-file": ["/etc/hostname", "/nonexistent/ca"],
      "http-timeout": ["5", "0", "1.5"], "seed": ["7", "18446744073709551615", "x"],
      "clock": ["live", "virtual", "other"], "max-advance-wakeups": ["1", "0", "1000"],
      "record": ["/tmp/record.jsonl"], "max-instances": ["1", "0", "5"],
      "state-dir": ["/tmp/state"], "state-url": ["postgresql://u@127.0.0.1/db"],
      "process-id": ["p1", "p2"], "lease-seconds": ["3", "2", "10"],
      "fsync": ["always", "batch", "never", "sometimes"], "passivate-after": ["0.5", "0"],
      "max-active": ["1", "0"], "websocket-url": ["ws://127.0.0.1:1/x", "not a url"],
      "max-received": ["3", "0"], "max-nth-prime": ["100", "0"], "call-wait": ["1"],
      "nope": ["1"],
    ]
    let names = values.keys.sorted()
    let others = [
      "--allow-effect-actions", "--help", "-h", "--version", "help", "mcp", "-x", "--", "stray",
    ]
    var random = SeededGenerator(seed: 35)
    var accepted = 0
    for _ in 0..<600 {
      var arguments: [String] = random.next() % 3 == 0 ? [] : ["run"]
      for _ in 0..<Int(random.next() % 5) {
        if random.next() % 8 == 0 {
          arguments.append(others[Int(random.next() % UInt64(others.count))])
          continue
        }
        let name = names[Int(random.next() % UInt64(names.count))]
        let choices = values[name]!
        let value = choices[Int(random.next() % UInt64(choices.count))]
        if random.next() % 4 == 0 {
          arguments.append("--\(name)=\(value)")
        } else {
          arguments += ["--\(name)", value]
        }
      }
      guard let fast = RunOptions(commonArguments: arguments[...]),
        (try? fast.validate()) != nil
      else { continue }
      accepted += 1
      XCTAssertEqual(parsed(arguments), fast, "\(arguments)")
    }
    // Enough of them read without the parser for the comparison to mean something.
    XCTAssertGreaterThan(accepted, 100)
  }
}

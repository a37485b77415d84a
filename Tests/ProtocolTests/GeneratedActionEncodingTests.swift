import ComposableCore
import ComposableDependencies
import ComposableTestSupport
import JSON
import PrimesFeature
import RandomTodoFeature
import VotesFeature
import WebSocketFeature
import XCTest

@_spi(Hosting) @testable import Protocol

// Fixtures: every shape a value takes on the wire, with the encoding `@ComposableAction`
// writes: a child's lone value beside its parent's field, a child action beside an action
// field, actions as labelled fields, optional children, generic values, and enums without the
// macro under one with it and the other way round.
@ComposableAction
private enum WrittenAction: Equatable {
  case echo(EchoAction)
  case scoped(EchoCounterAction, flag: Bool)
  case mixed(Int, label: String?)
  case `default`(value: Bool)
  case field(row: EchoRowAction, maybe: EchoAlertAction?)
  case childAndField(EchoCounterAction, EchoRowAction)
  case plain(UnwrittenAction)
  case generic(WrittenGeneric<Int>)
  case genericAction(WrittenGeneric<EchoCounterAction>)
  case genericOptionalAction(WrittenGeneric<EchoAlertAction?>)
  case numbers(Double, Float?, UInt8, Int64?)
  case scalars(String?, Bool?, flag: Bool, Int?)
  case rows(IdentifiedAction<String, EchoRowAction>)
  case nested(child: WrittenGeneric<String?>)
  case `café`(Int)
}

@ComposableAction
private enum WrittenGeneric<Value: Codable & Sendable & Equatable>: Equatable {
  case success(Value)
  case maybe(Value?, count: Int)
  case labelled(value: Value)
}

/// Conforms without the macro: written through its synthesized `Encodable`, also under an enum
/// with the macro.
private enum UnwrittenAction: ComposableAction, Equatable {
  case tapped
  case set(Int)
  case child(EchoCounterAction)
  case written(WrittenGeneric<Int>)
  case pair(Int, String?)
}

/// The encoding `@ComposableAction` writes against the enums' synthesized `Encodable`, which
/// stays the reference: the same JSON and the same bytes, for random actions of the fixtures
/// and of the seed stores.
final class GeneratedActionEncodingTests: XCTestCase {
  func testTheWrittenEncodingWritesTheWireForm() {
    let table: [(WrittenAction, String)] = [
      (.echo(.counter(.incrTapped)), #"{"type":"echo.counter.incrTapped"}"#),
      (
        .scoped(.countChanged(3), flag: true),
        #"{"type":"scoped.countChanged","value":3,"flag":true}"#
      ),
      (.mixed(4, label: nil), #"{"type":"mixed","_0":4,"label":null}"#),
      (.default(value: false), #"{"type":"default","value":false}"#),
      (
        .field(row: .renamed(title: "t"), maybe: nil),
        #"{"type":"field","row":{"type":"renamed","title":"t"},"maybe":null}"#
      ),
      (
        .childAndField(.countChanged(1), .toggled),
        #"{"type":"childAndField.countChanged","value":1,"_1":{"type":"toggled"}}"#
      ),
      (.plain(.written(.success(2))), #"{"type":"plain.written.success","value":2}"#),
      (
        .genericAction(.success(.countChanged(5))),
        #"{"type":"genericAction.success.countChanged","value":5}"#
      ),
      (.genericAction(.maybe(nil, count: 1)), #"{"type":"genericAction.maybe","count":1}"#),
      (
        .genericOptionalAction(.success(.dismissed)),
        #"{"type":"genericOptionalAction.success","value":{"type":"dismissed"}}"#
      ),
      (.numbers(0.5, nil, 7, -1), #"{"type":"numbers","_0":0.5,"_1":null,"_2":7,"_3":-1}"#),
      (
        .rows(.element(id: "a\"", action: .toggled)),
        #"{"type":"rows.element","id":"a\"","action":{"type":"toggled"}}"#
      ),
      (
        .nested(child: .labelled(value: nil)),
        #"{"type":"nested","child":{"type":"labelled","value":null}}"#
      ),
      (.café(1), #"{"type":"café","value":1}"#),
    ]
    for (action, text) in table {
      XCTAssertEqual(Self.written(action, synthesizedOnly: false), text)
      XCTAssertEqual(Self.written(action, synthesizedOnly: true), text)
    }
  }

  func testTheWrittenEncodingAgreesWithTheSynthesizedOneOnRandomActions() {
    var random = SeededGenerator(seed: 38)
    for _ in 0..<20_000 {
      Self.checkAgreement(Self.randomAction(using: &random))
    }
  }

  func testTheSeedStoresWrittenEncodingAgreesWithTheSynthesizedOne() {
    var random = SeededGenerator(seed: 39)
    for _ in 0..<5_000 {
      Self.checkAgreement(Self.randomPrimesAction(using: &random))
      Self.checkAgreement(Self.randomTodoAction(using: &random))
      Self.checkAgreement(Self.randomVotesAction(using: &random))
      Self.checkAgreement(Self.randomWebSocketAction(using: &random))
    }
  }

  /// The written and the synthesized encoding of `action` give the same object, the same bytes
  /// (appended after what the buffer held) and the same type path.
  private static func checkAgreement<A: ComposableAction>(
    _ action: A, file: StaticString = #filePath, line: UInt = #line
  ) {
    let written = ActionEncoder.object(action, synthesizedOnly: false)
    let synthesized = ActionEncoder.object(action, synthesizedOnly: true)
    XCTAssertEqual(written, synthesized, file: file, line: line)
    XCTAssertEqual(
      Self.written(action, synthesizedOnly: false), Self.written(action, synthesizedOnly: true),
      file: file, line: line)
    var bytes = Array("[".utf8)
    ActionCoding.encode(action, into: &bytes)
    XCTAssertEqual(bytes, Array("[".utf8) + synthesized.serialized, file: file, line: line)
    XCTAssertEqual(
      ActionCoding.typePath(of: action), synthesized["type"]?.stringValue, file: file, line: line)
  }

  /// The bytes form's text.
  private static func written<A: ComposableAction>(_ action: A, synthesizedOnly: Bool) -> String {
    var bytes: [UInt8] = []
    ActionEncoder.write(action, into: &bytes, synthesizedOnly: synthesizedOnly)
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func int(using random: inout SeededGenerator) -> Int {
    [0, -1, 7, Int.max, Int.min, Int.random(in: -1_000...1_000, using: &random)]
      .randomElement(using: &random)!
  }

  private static func string(using random: inout SeededGenerator) -> String {
    let pieces = ["a", "hello ", "é", "\"", "\\", "\n", "\u{1}", "/", "😀", "\u{7F}", ""]
    return (0..<Int.random(in: 0...4, using: &random)).map { _ in
      pieces.randomElement(using: &random)!
    }.joined()
  }

  private static func maybe<T>(_ value: T, using random: inout SeededGenerator) -> T? {
    Bool.random(using: &random) ? value : nil
  }

  private static func randomCounter(using random: inout SeededGenerator) -> EchoCounterAction {
    Bool.random(using: &random) ? .incrTapped : .countChanged(int(using: &random))
  }

  private static func randomRow(using random: inout SeededGenerator) -> EchoRowAction {
    Bool.random(using: &random) ? .toggled : .renamed(title: string(using: &random))
  }

  private static func randomGeneric<Value>(
    _ value: (inout SeededGenerator) -> Value, using random: inout SeededGenerator
  ) -> WrittenGeneric<Value> {
    switch Int.random(in: 0..<3, using: &random) {
    case 0: .success(value(&random))
    case 1: .maybe(maybe(value(&random), using: &random), count: int(using: &random))
    default: .labelled(value: value(&random))
    }
  }

  private static func randomEcho(using random: inout SeededGenerator) -> EchoAction {
    switch Int.random(in: 0..<14, using: &random) {
    case 0: .counter(randomCounter(using: &random))
    case 1: .message(string(using: &random))
    case 2: .move(from: int(using: &random), to: int(using: &random))
    case 3: .pair(string(using: &random), int(using: &random))
    case 4: .response(maybe(int(using: &random), using: &random))
    case 5: .flag(on: Bool.random(using: &random))
    case 6: .ratio([0, 0.5, 1, -2.25, 1e300, .nan].randomElement(using: &random)!)
    case 7: .small(Int8.random(in: .min ... .max, using: &random))
    case 8: .profile(EchoProfile(name: string(using: &random), age: int(using: &random)))
    case 9: .list((0..<Int.random(in: 0...3, using: &random)).map { _ in int(using: &random) })
    case 10: .rows(.element(id: int(using: &random), action: randomRow(using: &random)))
    case 11: .alert(maybe(.dismissed, using: &random))
    case 12: .note(maybe(string(using: &random), using: &random), count: int(using: &random))
    default: .café(int(using: &random))
    }
  }

  private static func randomUnwritten(using random: inout SeededGenerator) -> UnwrittenAction {
    switch Int.random(in: 0..<5, using: &random) {
    case 0: .tapped
    case 1: .set(int(using: &random))
    case 2: .child(randomCounter(using: &random))
    case 3: .written(randomGeneric({ int(using: &$0) }, using: &random))
    default: .pair(int(using: &random), maybe(string(using: &random), using: &random))
    }
  }

  private static func randomAction(using random: inout SeededGenerator) -> WrittenAction {
    switch Int.random(in: 0..<15, using: &random) {
    case 0: return .echo(randomEcho(using: &random))
    case 1: return .scoped(randomCounter(using: &random), flag: Bool.random(using: &random))
    case 2: return .mixed(int(using: &random), label: maybe(string(using: &random), using: &random))
    case 3: return .default(value: Bool.random(using: &random))
    case 4:
      return .field(row: randomRow(using: &random), maybe: maybe(.dismissed, using: &random))
    case 5: return .childAndField(randomCounter(using: &random), randomRow(using: &random))
    case 6: return .plain(randomUnwritten(using: &random))
    case 7: return .generic(randomGeneric({ int(using: &$0) }, using: &random))
    case 8: return .genericAction(randomGeneric({ randomCounter(using: &$0) }, using: &random))
    case 9:
      return .genericOptionalAction(
        randomGeneric({ maybe(EchoAlertAction.dismissed, using: &$0) }, using: &random))
    case 10:
      return .numbers(
        [0, 0.1, -3, 1e-7, .infinity].randomElement(using: &random)!,
        maybe(Float(0.25), using: &random), UInt8.random(in: 0...255, using: &random),
        maybe(Int64.random(in: .min ... .max, using: &random), using: &random))
    case 11:
      return .scalars(
        maybe(string(using: &random), using: &random),
        maybe(Bool.random(using: &random), using: &random), flag: Bool.random(using: &random),
        maybe(int(using: &random), using: &random))
    case 12:
      return .rows(.element(id: string(using: &random), action: randomRow(using: &random)))
    case 13:
      return .nested(
        child: randomGeneric(
          { maybe(string(using: &$0), using: &$0) }, using: &random))
    default: return .café(int(using: &random))
    }
  }

  private static func randomPrimesAction(using random: inout SeededGenerator) -> PrimesAction {
    switch Int.random(in: 0..<12, using: &random) {
    case 0: .counter(.incrTapped)
    case 1: .counter(.decrTapped)
    case 2: .counter(.countChanged(int(using: &random)))
    case 3: .counter(.nthPrimeButtonTapped)
    case 4: .counter(.nthPrimeResponse(maybe(int(using: &random), using: &random)))
    case 5:
      .primeModal(
        Bool.random(using: &random) ? .saveFavoritePrimeTapped : .removeFavoritePrimeTapped)
    case 6:
      .favoritePrimes(
        .deleteFavoritePrimes(
          indices: (0..<Int.random(in: 0...3, using: &random)).map { _ in int(using: &random) }))
    case 7: .favoritePrimes(.saveButtonTapped)
    case 8: .favoritePrimes(.loadButtonTapped)
    case 9: .favoritePrimes(.loadedFavoritePrimes([int(using: &random)]))
    case 10: .favoritePrimes(.savedFavoritePrimes)
    default:
      .favoritePrimes(
        .storageFailed(
          operation: StorageOperation.allCases.randomElement(using: &random)!,
          message: string(using: &random)))
    }
  }

  private static func randomFailure(using random: inout SeededGenerator) -> RequestFailure {
    RequestFailure(
      kind: RequestFailure.Kind.allCases.randomElement(using: &random)!,
      url: string(using: &random), message: string(using: &random))
  }

  private static func randomTodoAction(using random: inout SeededGenerator) -> RandomTodoAction {
    switch Int.random(in: 0..<6, using: &random) {
    case 0: .viewDidAppear
    case 1: .clickButton
    case 2: .stopRandomText
    case 3: .timerTicked
    case 4:
      .fetchResult(
        .success(
          Todo(
            userId: int(using: &random), id: int(using: &random), title: string(using: &random),
            completed: Bool.random(using: &random))))
    default: .fetchResult(.failure(randomFailure(using: &random)))
    }
  }

  private static func randomSocketMessage(using random: inout SeededGenerator) -> SocketMessage {
    Bool.random(using: &random)
      ? .text(string(using: &random))
      : .binary(
        (0..<Int.random(in: 0...5, using: &random)).map { _ in
          UInt8.random(in: 0...255, using: &random)
        })
  }

  private static func randomWebSocketAction(using random: inout SeededGenerator)
    -> WebSocketAction
  {
    switch Int.random(in: 0..<9, using: &random) {
    case 0: .connectButtonTapped
    case 1: .messageToSendChanged(string(using: &random))
    case 2: .sendMessage(randomSocketMessage(using: &random))
    case 3:
      .subscribeOrderBook(
        codes: (0..<Int.random(in: 0...3, using: &random)).map { _ in string(using: &random) })
    case 4: .sendResponse(didSucceed: Bool.random(using: &random))
    case 5: .webSocket(.didOpen(protocol: maybe(string(using: &random), using: &random)))
    case 6: .webSocket(.didClose(code: int(using: &random), reason: string(using: &random)))
    case 7: .receivedSocketMessage(.success(randomSocketMessage(using: &random)))
    default: .receivedSocketMessage(.failure(string(using: &random)))
    }
  }

  private static func randomVotesAction(using random: inout SeededGenerator) -> VotesAction {
    switch Int.random(in: 0..<8, using: &random) {
    case 0: .onAppear
    case 1: .categorySelected(maybe(string(using: &random), using: &random))
    case 2: .task(Bool.random(using: &random) ? .willRun : .didFinish)
    case 3: .isLoading(Bool.random(using: &random))
    case 4: .inner(.updatePopularItems(.success([])))
    case 5: .inner(.updateVoteHeaderCategory(.failure(randomFailure(using: &random))))
    case 6: .inner(.updateVoteItems(.failure(randomFailure(using: &random))))
    default: .getPopularVoteItems
    }
  }
}

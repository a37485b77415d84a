import ComposableTestSupport
import JSON
import XCTest

@_spi(Hosting) @testable import Protocol

/// The compact reader is a shortcut: wherever it accepts a line, the general parser must read
/// the very same message from it.
final class CompactActionLineTests: XCTestCase {
  func testCommonLinesAreReadCompactly() {
    XCTAssertEqual(
      compact(#"{"store":"primes","action":"counter.incrTapped"}"#),
      .action(store: "primes", action: "counter.incrTapped", id: nil))
    XCTAssertEqual(
      compact(#" { "id" : -42 , "action" : { "type" : "a.b" } , "store" : "s" } "#),
      .action(store: "s", action: ["type": "a.b"], id: -42))
    XCTAssertEqual(
      compact(#"{"store":"s","action":"a","id":"req 1"}"#),
      .action(store: "s", action: "a", id: "req 1"))
    XCTAssertEqual(
      compact(#"{"store":"s","instance":"user-42","action":"a"}"#),
      .action(store: "s", instance: try? InstanceKey(validating: "user-42"), action: "a", id: nil))
    // A payload: the action object is the general parser's, the rest is read compactly.
    XCTAssertEqual(
      compact(#"{"id":7,"store":"s","action":{ "type":"a","v":[1,"\u00e9"] }}"#),
      .action(store: "s", action: ["type": "a", "v": [1, "é"]], id: 7))
    // A payload of scalars stays text, written back as it stands when it holds no whitespace.
    XCTAssertEqual(
      compact(#"{"store":"s","action":{"v":-3,"type":"a","w":null}}"#),
      .action(store: "s", action: ["v": -3, "type": "a", "w": .null], id: nil))
    // So does one of objects and arrays of them, as deep as the line may go.
    for (action, isCompact, depth) in [
      (#"{"type":"a","v":true,"s":"x y"}"#, true, 1), (#"{"type":"a", "v":1}"#, false, 1),
      (#"{"type":"e","id":1,"action":{"type":"toggled"}}"#, true, 2),
      (#"{"type":"a","v":{"x":[1,{}],"y":[]}}"#, true, 4),
      (#"{"type":"a","v":[ 1 ]}"#, false, 2), (#"{"type":"a","v":{"x" :1}}"#, false, 2),
    ] {
      Array((#"{"store":"s","action":"# + action + "}").utf8).withUnsafeBytes { bytes in
        guard case .text(let text)? = (try? CompactActionLine(bytes, maxDepth: depth + 1))?.action
        else {
          return XCTFail(action)
        }
        XCTAssertEqual(String(decoding: text.bytes, as: UTF8.self), action)
        XCTAssertEqual(text.isCompact, isCompact, action)
        XCTAssertEqual(text.depth, depth, action)
        // One level less than it needs, and the line is the general parser's, which refuses it.
        XCTAssertNil(try? CompactActionLine(bytes, maxDepth: depth), action)
      }
    }
  }

  /// An integer id of any length is kept as written (the fuzzer once found a 90-digit one that
  /// overflowed a reader that computed its value).
  func testIntegerIDsOfAnyLengthAreKeptAsWritten() {
    let long = String(repeating: "6", count: 90)
    for digits in ["1234567890123456", "18446744073709551617", long] {
      XCTAssertEqual(
        compact(#"{"store":"s","action":"a","id":"# + digits + "}"),
        .action(store: "s", action: "a", id: MessageID(text: Array(digits.utf8))))
    }
  }

  func testEverythingElseIsLeftToTheGeneralParser() {
    for line in [
      #"{"store":"s"}"#, #"{"action":"a"}"#, #"{"store":"s","action":"a","x":1}"#,
      #"{"store":"s","store":"t","action":"a"}"#, #"{"store":"s","action":{"type":"a","v":}}"#,
      #"{"store":"s","action":["a"]}"#,
      #"{"store":"s\u0031","action":"a"}"#, #"{"store":"é","action":"a"}"#,
      #"{"store":"s","action":"a","id":1.5}"#, #"{"store":"s","action":"a","id":007}"#,
      #"{"store":"s","action":"a","id":-0}"#,
      #"{"store":"s","action":"a"} x"#, #"{"store":"s","action":"a"}}"#, #"{"cmd":"quit"}"#,
      #"{"store":"s","action":"a","id":null}"#, #"{"store":"s",,"action":"a"}"#,
      // Keys the general path refuses, or that hold escapes or more than ASCII.
      #"{"store":"s","instance":"","action":"a"}"#,
      "{\"store\":\"s\",\"instance\":\"a\u{7F}\",\"action\":\"a\"}",
      #"{"store":"s","instance":"\#(String(repeating: "k", count: 257))","action":"a"}"#,
      #"{"store":"s","instance":"é","action":"a"}"#, #"{"store":"s","instance":7,"action":"a"}"#,
      #"{"store":"s","instance":"a","instance":"b","action":"a"}"#,
    ] {
      XCTAssertNil(compact(line), line)
    }
    XCTAssertNil(compact(#"{"store":"s","action":{"type":"a"}}"#, maxDepth: 1))
    XCTAssertNil(compact(#"{"store":"s","action":{"type":"a","v":[1]}}"#, maxDepth: 2))
  }

  /// A key given twice is found wherever the repeat is and however deep: such a payload is no
  /// text of the line. Without the repeat, the same objects are.
  func testARepeatedKeyIsFoundWhereverItIsAndAtAnyDepth() {
    for count in [2, 3, 17, ActionText.maxMembers] {
      // "v" first, holding the next level down, then "k1"…; the last key new or a repeat.
      let keys = ["v"] + (1..<count - 1).map { "k\($0)" }
      for last in ["new", keys[0], keys[keys.count / 2], keys[keys.count - 1]] {
        for depth in [1, 4] {
          var value = "0"
          for _ in 0..<depth {
            let members = (keys + [last]).enumerated().map {
              #""\#($1)":"# + ($0 == 0 ? value : "0")
            }
            value = "{" + members.joined(separator: ",") + "}"
          }
          let line = #"{"store":"s","action":{"type":"a","w":"# + value + "}}"
          Array(line.utf8).withUnsafeBytes { bytes in
            let action = (try? CompactActionLine(bytes, maxDepth: 64))?.action
            if case .text(let text)? = action {
              XCTAssertEqual(last, "new", "\(count) \(last) \(depth)")
              XCTAssertEqual(text.depth, depth + 1)
            } else {
              XCTAssertNotEqual(last, "new", "\(count) \(last) \(depth)")
            }
          }
        }
      }
    }
    // One member more than a text may have.
    let members = (0...ActionText.maxMembers).map { #""k\#($0)":0"# }.joined(separator: ",")
    Array((#"{"store":"s","action":{"type":"a","w":{"# + members + "}}}").utf8)
      .withUnsafeBytes { bytes in
        guard case .text? = (try? CompactActionLine(bytes, maxDepth: 64))?.action else { return }
        XCTFail("an object of \(ActionText.maxMembers + 1) members read as text")
      }
  }

  func testAcceptedLinesReadAsTheGeneralParserReadsThem() {
    var random = SeededGenerator(seed: 5)
    var accepted = 0
    for _ in 0..<20_000 {
      let line = Self.randomLine(using: &random)
      let maxDepth = [1, 2, 64].randomElement(using: &random)!
      line.withUnsafeBytes { bytes in
        guard let compact = (try? CompactActionLine(bytes, maxDepth: maxDepth))?.message else {
          return
        }
        accepted += 1
        let general = try? InputMessage(JSONParser.parse(bytes, maxDepth: maxDepth), line: bytes)
        XCTAssertEqual(compact, general, String(decoding: line, as: UTF8.self))
        XCTAssertEqual("\(compact)", general.map { "\($0)" }, String(decoding: line, as: UTF8.self))
      }
    }
    // The generator must reach the shortcut often, or the agreement above shows little.
    XCTAssertGreaterThan(accepted, 400)
  }

  private func compact(_ line: String, maxDepth: Int = 64) -> InputMessage? {
    Array(line.utf8).withUnsafeBytes { (try? CompactActionLine($0, maxDepth: maxDepth))?.message }
  }

  /// Action lines put together from likely and unlikely pieces, then sometimes cut short or
  /// with a byte changed.
  private static func randomLine(using random: inout SeededGenerator) -> [UInt8] {
    let stores = [#""primes""#, #""""#, #""pri\u006des""#, #""é""#, "7", #""a\"b""#]
    let actions = [
      #""counter.incrTapped""#, #"{"type":"counter.decrTapped"}"#, #"{ "type" : "x" }"#,
      #"{"type":"a","value":1}"#, #"{"value":1}"#, "null", "[]", #"{"type":7}"#, #"{}"#,
      // Payloads, read by the general parser on their own.
      #"{ "type" : "counter.countChanged", "value" : -7 }"#,
      #"{"type":"a","v":[1,{"x":"é\n"}],"w":null}"#, #"{"type":"a","t":"\u00e9","t":2}"#,
      #"{"type":"a","v":[[[1]]]}"#, #"{"type":"a","value":}"#, #"{"type":"a","s":"\x"}"#,
      // Payloads of scalars, kept as text; and near misses, left to the parser.
      #"{"type":"a","v":true,"w":false,"x":null,"s":"t u"}"#, #"{"v":-12,"type":"a"}"#,
      #"{"type":"a","v":123456789012345678}"#, #"{"type":"a","v":1234567890123456789}"#,
      #"{"type":"a","v":-123456789012345678}"#, #"{"type":"a","v":1,"v":2}"#,
      #"{"type":"a","type":"b","v":1}"#, #"{"type":"a","v":tru}"#, #"{"type":"a","v":nullx}"#,
      #"{"type":"a","v":01}"#, #"{"type":"a","v":-0}"#, #"{"type":"a","v":1.0}"#,
      #"{ "type":"a" ,"v" :1 }"#, #"{"type":"a","v":"é"}"#,
      // Objects and arrays of plain values, kept as text too; and near misses.
      #"{"type":"a","v":[1,2]}"#, #"{"type":"a","v":{"x":1,"y":[true,null]}}"#,
      #"{"type":"e","id":3,"action":{"type":"renamed","title":"r"}}"#,
      #"{"type":"a","v":{"x":1,"x":2}}"#, #"{"type":"a","v":[1,]}"#, #"{"type":"a","v":{"x"}}"#,
      #"{"type":"a","v":{}}"#, #"{"type":"a","v":[ ]}"#, #"{"type":"a","v":[[{"type":"b"}]]}"#,
      #"{"type":"a","v":{"y":[1.5]}}"#, #"{"type":"a","v":[1 2]}"#, #"{"type":"a","v":{"type":2}}"#,
    ]
    let ids = [
      "1", "-1", "0", "-0", "007", "1.5", "1e2", "2E1", "123456789012345", "1234567890123456",
      #""req-1""#, "null", "true", #""\n""#, "-", "[1]",
    ]
    let instances = [
      #""user-42""#, #""u""#, #""""#, #""\u0041""#, #""é""#, "7", "null", "\"a\u{7F}b\"",
      "\"" + String(repeating: "k", count: 256) + "\"",
      "\"" + String(repeating: "k", count: 257) + "\"",
    ]
    let extras = [#""cmd":"quit""#, #""x":1"#, #""store":"twice""#]
    let spaces = ["", "", " ", "\t", "\r\n", "  "]
    func space() -> String { spaces.randomElement(using: &random)! }
    var members: [String] = []
    if Int.random(in: 0..<10, using: &random) > 0 {
      members.append(#""store""# + space() + ":" + space() + stores.randomElement(using: &random)!)
    }
    if Int.random(in: 0..<10, using: &random) > 0 {
      members.append(
        #""action""# + space() + ":" + space() + actions.randomElement(using: &random)!)
    }
    if Int.random(in: 0..<4, using: &random) == 0 {
      members.append(
        #""instance""# + space() + ":" + space() + instances.randomElement(using: &random)!)
    }
    if Bool.random(using: &random) {
      members.append(#""id""# + space() + ":" + space() + ids.randomElement(using: &random)!)
    }
    if Int.random(in: 0..<6, using: &random) == 0 {
      members.append(extras.randomElement(using: &random)!)
    }
    members.shuffle(using: &random)
    var line = Array(
      (space() + "{" + space() + members.joined(separator: space() + "," + space()) + space() + "}"
        + space()).utf8)
    switch Int.random(in: 0..<8, using: &random) {
    case 0 where !line.isEmpty:
      line.removeLast(Int.random(in: 1...line.count, using: &random))
    case 1 where !line.isEmpty:
      line[Int.random(in: 0..<line.count, using: &random)] = UInt8.random(
        in: 0...255, using: &random)
    case 2:
      line += Array([",", "}", "x", " 1"].randomElement(using: &random)!.utf8)
    default:
      break
    }
    return line
  }
}

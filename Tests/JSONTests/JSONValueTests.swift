import ComposableTestSupport
import JSON
import XCTest

final class JSONValueTests: XCTestCase {
  func testIntegersEqualIntegralDoubles() {
    XCTAssertEqual(JSONValue.int(1), .number(1.0))
    XCTAssertEqual(JSONValue.number(-0.0), .int(0))
    XCTAssertNotEqual(JSONValue.int(1), .number(1.5))
    XCTAssertNotEqual(JSONValue.int(1), .string("1"))
    XCTAssertNotEqual(JSONValue.int(1), .bool(true))
    // 2^53 + 1 has no exact double: the nearest double is a different number.
    XCTAssertNotEqual(JSONValue.int(9_007_199_254_740_993), .number(9_007_199_254_740_992))
    XCTAssertNotEqual(JSONValue.int(.max), .number(9_223_372_036_854_775_808))
  }

  func testHashingAgreesWithEquality() {
    let pairs: [(JSONValue, JSONValue)] = [
      (.int(1), .number(1.0)),
      (.int(0), .number(-0.0)),
      (["a": 1, "b": [2.0]], ["b": [2], "a": 1.0]),
      (["x": ["y": nil]], ["x": ["y": .null]]),
    ]
    for (lhs, rhs) in pairs {
      XCTAssertEqual(lhs, rhs)
      XCTAssertEqual(lhs.hashValue, rhs.hashValue, "\(lhs) and \(rhs)")
    }
    let set: Set<JSONValue> = [1, 1.0, "1", true, nil, [1], ["a": 1]]
    XCTAssertEqual(set.count, 6)
  }

  func testStringsCompareByCodePoints() {
    // Canonically equivalent in Swift, different in JSON.
    let precomposed = JSONValue.string("\u{E9}")
    let decomposed = JSONValue.string("e\u{301}")
    XCTAssertNotEqual(precomposed, decomposed)
    XCTAssertEqual(Set([precomposed, decomposed]).count, 2)
    XCTAssertEqual(
      JSONValue.string("long string beyond the small form"),
      .string("long string beyond the small form"))
  }

  func testObjectEqualityIgnoresOrder() {
    XCTAssertEqual(JSONValue.object(["a": 1, "b": 2]), .object(["b": 2, "a": 1]))
    XCTAssertNotEqual(JSONValue.object(["a": 1, "b": 2]), .object(["a": 1]))
    XCTAssertNotEqual(JSONValue.object(["a": 1]), .object(["b": 1]))
    XCTAssertNotEqual(JSONValue.object(["a": nil]), .object([:]))
  }

  func testLiteralsAndAccessors() {
    let value: JSONValue = [
      "count": 3, "ratio": 0.5, "name": "x", "on": true, "none": nil, "list": [1, 2],
    ]
    XCTAssertEqual(value["count"]?.intValue, 3)
    XCTAssertEqual(value["ratio"]?.doubleValue, 0.5)
    XCTAssertEqual(value["count"]?.doubleValue, 3)
    XCTAssertEqual(value["name"]?.stringValue, "x")
    XCTAssertEqual(value["on"]?.boolValue, true)
    XCTAssertEqual(value["none"]?.isNull, true)
    XCTAssertEqual(value["list"]?.arrayValue, [1, 2])
    XCTAssertNil(value["missing"])
    XCTAssertNil(JSONValue.int(1)["a"])
    XCTAssertNil(JSONValue.number(1.5).intValue)
    XCTAssertEqual(JSONValue.number(2).intValue, 2)
    XCTAssertEqual(value.objectValue?.count, 6)
    XCTAssertEqual(value.description, value.jsonString)
  }

  func testBriefDescription() {
    XCTAssertEqual(JSONValue.string("x").briefDescription, #""x""#)
    XCTAssertEqual(JSONValue.int(7).briefDescription, "7")
    XCTAssertEqual(JSONValue.null.briefDescription, "null")
    XCTAssertEqual(JSONValue.array([1]).briefDescription, "an array")
    XCTAssertEqual(JSONValue.object([:]).briefDescription, "an object")
    XCTAssertEqual(JSONValue.string(String(repeating: "y", count: 100)).briefDescription.count, 42)
  }
}

final class JSONObjectTests: XCTestCase {
  func testInsertionOrderAndUniqueKeys() {
    var object: JSONObject = ["b": 1, "a": 2]
    object["c"] = 3
    object["b"] = 10
    XCTAssertEqual(object.keys, ["b", "a", "c"])
    XCTAssertEqual(object.values, [10, 2, 3])
    XCTAssertEqual(object.count, 3)
    object["a"] = nil
    XCTAssertEqual(object.keys, ["b", "c"])
    XCTAssertNil(object["a"])
    XCTAssertEqual(object.removeValue(forKey: "b"), 10)
    XCTAssertNil(object.removeValue(forKey: "b"))
    XCTAssertEqual(object.updateValue(4, forKey: "c"), 3)
    XCTAssertNil(object.updateValue(5, forKey: "d"))
    XCTAssertEqual(Array(object.map(\.key)), ["c", "d"])
  }

  func testRepeatedKeysInInitializerKeepFirstPositionAndLastValue() {
    let object = JSONObject([("a", 1), ("b", 2), ("a", 3)])
    XCTAssertEqual(object.keys, ["a", "b"])
    XCTAssertEqual(object["a"], 3)
  }

  func testIterationYieldsPairsInOrder() {
    let object: JSONObject = ["x": 1, "y": "z"]
    var seen: [String] = []
    for (key, value) in object {
      seen.append("\(key)=\(value)")
    }
    XCTAssertEqual(seen, ["x=1", #"y="z""#])
  }

  func testLargeObjectsStayConsistentThroughEdits() {
    var object = JSONObject()
    var mirror: [String: Int] = [:]
    var random = SeededGenerator(seed: 11)
    for step in 0..<3000 {
      let key = "key\(Int.random(in: 0..<60, using: &random))"
      if Bool.random(using: &random) {
        object[key] = .int(step)
        mirror[key] = step
      } else {
        XCTAssertEqual(
          object.removeValue(forKey: key), mirror.removeValue(forKey: key).map(JSONValue.int))
      }
      XCTAssertEqual(object.count, mirror.count)
    }
    for (key, value) in mirror {
      XCTAssertEqual(object[key], .int(value))
    }
    XCTAssertEqual(Set(object.keys), Set(mirror.keys))
    XCTAssertEqual(object.index(forKey: object.keys[7]), 7)
  }

  func testEqualityAndHashIgnoreOrder() {
    let first: JSONObject = ["a": 1, "b": 2, "c": 3]
    let second: JSONObject = ["c": 3, "a": 1, "b": 2]
    XCTAssertEqual(first, second)
    XCTAssertEqual(first.hashValue, second.hashValue)
    XCTAssertEqual(first.description, #"{"a":1,"b":2,"c":3}"#)
  }
}

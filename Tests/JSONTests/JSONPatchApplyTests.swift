@_spi(Hosting) import JSON
import XCTest

final class JSONPatchApplyTests: XCTestCase {
  let document: JSONValue = [
    "name": "ada", "tags": ["x", "y", "z"], "nested": ["deep": [1, 2]], "a/b": 1, "m~n": 2,
  ]

  func testAdd() throws {
    XCTAssertEqual(
      try apply([.add(path: "/age", value: 36)], to: ["name": "ada"]), ["name": "ada", "age": 36])
    XCTAssertEqual(
      try apply([.add(path: "/name", value: "bob")], to: ["name": "ada"]), ["name": "bob"])
    XCTAssertEqual(try apply([.add(path: "/1", value: "new")], to: ["x", "y"]), ["x", "new", "y"])
    XCTAssertEqual(try apply([.add(path: "/2", value: "end")], to: ["x", "y"]), ["x", "y", "end"])
    XCTAssertEqual(try apply([.add(path: "/-", value: "end")], to: ["x", "y"]), ["x", "y", "end"])
    XCTAssertEqual(try apply([.add(path: "", value: [1])], to: ["whole": true]), [1])
    XCTAssertEqual(
      try apply([.add(path: "/nested/deep/0", value: 0)], to: document)["nested"],
      ["deep": [0, 1, 2]])
    XCTAssertEqual(try apply([.add(path: "/a~1b", value: 9)], to: document)["a/b"], 9)
    XCTAssertEqual(try apply([.add(path: "/m~0n", value: 9)], to: document)["m~n"], 9)
    XCTAssertEqual(try apply([.add(path: "/", value: 9)], to: [:]), ["": 9])
    XCTAssertEqual(try apply([.add(path: "/list", value: [])], to: [:]), ["list": []])
  }

  func testAddErrors() {
    assertFails([.add(path: "/missing/child", value: 1)], on: document, .pathNotFound)
    assertFails([.add(path: "/tags/4", value: 1)], on: document, .pathNotFound)
    assertFails([.add(path: "/tags/01", value: 1)], on: document, .pathNotFound)
    assertFails([.add(path: "/tags/-1", value: 1)], on: document, .pathNotFound)
    assertFails([.add(path: "/tags/x", value: 1)], on: document, .pathNotFound)
    assertFails([.add(path: "/name/x", value: 1)], on: document, .pathNotFound)
    assertFails([.add(path: "name", value: 1)], on: document, .invalidPointer)
  }

  func testRemove() throws {
    XCTAssertEqual(try apply([.remove(path: "/name")], to: ["name": "ada", "x": 1]), ["x": 1])
    XCTAssertEqual(try apply([.remove(path: "/1")], to: ["x", "y", "z"]), ["x", "z"])
    XCTAssertEqual(
      try apply([.remove(path: "/nested/deep/1")], to: document)["nested"], ["deep": [1]])
    assertFails([.remove(path: "/nope")], on: document, .pathNotFound)
    assertFails([.remove(path: "/tags/3")], on: document, .pathNotFound)
    assertFails([.remove(path: "/tags/-")], on: document, .pathNotFound)
    assertFails([.remove(path: "")], on: document, .invalidOperation)
  }

  func testReplace() throws {
    XCTAssertEqual(
      try apply([.replace(path: "/name", value: "bob")], to: ["name": "ada"]), ["name": "bob"])
    XCTAssertEqual(try apply([.replace(path: "/0", value: 0)], to: [1, 2]), [0, 2])
    XCTAssertEqual(try apply([.replace(path: "", value: "all")], to: document), "all")
    assertFails([.replace(path: "/age", value: 1)], on: document, .pathNotFound)
    assertFails([.replace(path: "/tags/3", value: 1)], on: document, .pathNotFound)
  }

  func testMove() throws {
    XCTAssertEqual(
      try apply([.move(from: "/name", path: "/nested/name")], to: ["name": "ada", "nested": [:]]),
      ["nested": ["name": "ada"]])
    XCTAssertEqual(
      try apply([.move(from: "/0", path: "/2")], to: ["a", "b", "c"]), ["b", "c", "a"])
    XCTAssertEqual(
      try apply([.move(from: "/2", path: "/0")], to: ["a", "b", "c"]), ["c", "a", "b"])
    XCTAssertEqual(
      try apply([.move(from: "/name", path: "/name")], to: ["name": "ada"]), ["name": "ada"])
    assertFails([.move(from: "/nested", path: "/nested/deep/x")], on: document, .invalidOperation)
    assertFails([.move(from: "/missing", path: "/x")], on: document, .pathNotFound)
  }

  func testCopy() throws {
    XCTAssertEqual(
      try apply([.copy(from: "/tags/0", path: "/first")], to: document)["first"], "x")
    XCTAssertEqual(try apply([.copy(from: "/0", path: "/-")], to: [[1]]), [[1], [1]])
    assertFails([.copy(from: "/missing", path: "/x")], on: document, .pathNotFound)
  }

  func testTest() throws {
    XCTAssertEqual(try apply([.test(path: "/name", value: "ada")], to: document), document)
    XCTAssertEqual(
      try apply([.test(path: "/nested", value: ["deep": [1.0, 2]])], to: document), document)
    XCTAssertEqual(try apply([.test(path: "", value: document)], to: document), document)
    assertFails([.test(path: "/name", value: "bob")], on: document, .testFailed)
    assertFails([.test(path: "/tags", value: ["x", "z", "y"])], on: document, .testFailed)
    assertFails([.test(path: "/missing", value: nil)], on: document, .pathNotFound)
  }

  func testErrorsNameTheOperationAndStopThePatch() {
    let patch: [JSONPatchOperation] = [
      .add(path: "/first", value: 1), .test(path: "/name", value: "bob"),
      .add(path: "/never", value: 2),
    ]
    XCTAssertThrowsError(try JSONPatch.apply(patch, to: document)) { error in
      let patchError = error as? JSONPatchError
      XCTAssertEqual(patchError?.operationIndex, 1)
      XCTAssertEqual(patchError?.kind, .testFailed)
      XCTAssertEqual(
        patchError?.description, #"operation 1: test at "/name" expected "bob", found "ada""#)
    }
    XCTAssertThrowsError(try JSONPatch.apply([.remove(path: "/tags/7")], to: document)) { error in
      XCTAssertEqual((error as? JSONPatchError)?.message, #"index 7 in "/tags/7" is out of bounds"#)
    }
    XCTAssertThrowsError(try JSONPatch.apply([.remove(path: "/nested/x/y")], to: document)) {
      error in
      XCTAssertEqual((error as? JSONPatchError)?.message, #"no value at "/nested/x""#)
    }
  }

  func testOperationJSON() throws {
    let operations: [JSONPatchOperation] = [
      .add(path: "/a", value: ["x": 1]), .remove(path: "/b"), .replace(path: "/c", value: nil),
      .move(from: "/d", path: "/e"), .copy(from: "/f", path: "/g"), .test(path: "/h", value: "v"),
    ]
    let texts = operations.map(\.jsonValue.jsonString)
    XCTAssertEqual(
      texts,
      [
        #"{"op":"add","path":"/a","value":{"x":1}}"#, #"{"op":"remove","path":"/b"}"#,
        #"{"op":"replace","path":"/c","value":null}"#, #"{"op":"move","from":"/d","path":"/e"}"#,
        #"{"op":"copy","from":"/f","path":"/g"}"#, #"{"op":"test","path":"/h","value":"v"}"#,
      ])
    for operation in operations {
      var buffer: [UInt8] = []
      operation.write(into: &buffer)
      XCTAssertEqual(buffer, operation.jsonValue.serialized)
      XCTAssertEqual(try JSONPatchOperation(json: operation.jsonValue), operation)
    }
    var buffer: [UInt8] = []
    JSONPatch.write(Array(operations.prefix(2)), into: &buffer)
    XCTAssertEqual(String(decoding: buffer, as: UTF8.self), "[\(texts[0]),\(texts[1])]")
  }

  func testReadingOperations() throws {
    XCTAssertEqual(
      try JSONPatchOperation(json: ["op": "add", "path": "/a", "value": nil, "extra": 1]),
      .add(path: "/a", value: nil))
    XCTAssertEqual(
      try JSONPatchOperation(json: ["path": "/a", "op": "remove"]), .remove(path: "/a"))
    let invalid: [(JSONValue, String)] = [
      (["op": "add", "path": "/a"], #"operation has no "value""#),
      (["op": "move", "path": "/a"], #"operation has no "from""#),
      (["op": "frobnicate", "path": "/a"], #"unknown op "frobnicate""#),
      (["path": "/a"], #"operation has no "op""#),
      (["op": "remove", "path": 1], #""path" must be a string, got 1"#),
      ([1], "an operation must be an object, got an array"),
    ]
    for (json, message) in invalid {
      XCTAssertThrowsError(try JSONPatchOperation(json: json)) { error in
        XCTAssertEqual((error as? JSONPatchError)?.kind, .invalidOperation)
        XCTAssertEqual((error as? JSONPatchError)?.message, message)
      }
    }
  }

  private func apply(_ patch: [JSONPatchOperation], to document: JSONValue) throws -> JSONValue {
    try JSONPatch.apply(patch, to: document)
  }

  private func assertFails(
    _ patch: [JSONPatchOperation], on document: JSONValue, _ kind: JSONPatchError.Kind,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertThrowsError(try JSONPatch.apply(patch, to: document), file: file, line: line) {
      error in
      XCTAssertEqual((error as? JSONPatchError)?.kind, kind, "\(error)", file: file, line: line)
      XCTAssertEqual((error as? JSONPatchError)?.operationIndex, 0, file: file, line: line)
    }
  }
}

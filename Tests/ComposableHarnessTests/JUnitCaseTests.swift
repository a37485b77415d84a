import XCTest

@testable import ComposableHarness

final class JUnitCaseTests: XCTestCase {
  /// Markup characters are escaped, and control characters XML 1.0 cannot hold are replaced:
  /// a scenario's name or an expected value must not break the report a CI server parses.
  func testTextIsEscapedForXML() {
    XCTAssertEqual(JUnitCase.escaped(#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&apos;")
    XCTAssertEqual(JUnitCase.escaped("tab\tline\nbell\u{7}"), "tab\tline\nbell\u{FFFD}")
  }

  func testOneSuitePerFileInTheOrderTheyRan() {
    let xml = JUnitCase.document([
      JUnitCase(file: "b.jsonl", name: "one", line: 1, failure: nil),
      JUnitCase(file: "a.jsonl", name: "two", line: 3, failure: ("it differs", "a.jsonl:4: …")),
      JUnitCase(file: "b.jsonl", name: "three", line: 9, failure: nil),
    ])
    XCTAssertEqual(
      xml,
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <testsuites tests="3" failures="1">
        <testsuite name="b.jsonl" tests="2" failures="0">
          <testcase name="one" classname="b.jsonl" file="b.jsonl" line="1"/>
          <testcase name="three" classname="b.jsonl" file="b.jsonl" line="9"/>
        </testsuite>
        <testsuite name="a.jsonl" tests="1" failures="1">
          <testcase name="two" classname="a.jsonl" file="a.jsonl" line="3">
            <failure message="it differs">a.jsonl:4: …</failure>
          </testcase>
        </testsuite>
      </testsuites>
      """)
  }
}

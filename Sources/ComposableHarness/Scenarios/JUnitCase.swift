/// One scenario (or unreadable file) of a JUnit XML report.
struct JUnitCase {
  let file: String
  let name: String
  let line: Int?
  /// The failure's one-line message and its full text.
  let failure: (message: String, detail: String)?

  /// The report: a `<testsuite>` per file, in the order the files ran.
  static func document(_ cases: [JUnitCase]) -> String {
    var files: [String] = []
    var byFile: [String: [JUnitCase]] = [:]
    for testCase in cases {
      if byFile[testCase.file] == nil { files.append(testCase.file) }
      byFile[testCase.file, default: []].append(testCase)
    }
    let failures = cases.filter { $0.failure != nil }.count
    var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    xml += #"<testsuites tests="\#(cases.count)" failures="\#(failures)">"# + "\n"
    for file in files {
      let suite = byFile[file]!
      let suiteFailures = suite.filter { $0.failure != nil }.count
      xml += #"  <testsuite name="\#(escaped(file))" tests="\#(suite.count)" "#
      xml += #"failures="\#(suiteFailures)">"# + "\n"
      for testCase in suite {
        xml += #"    <testcase name="\#(escaped(testCase.name))" classname="\#(escaped(file))" "#
        xml += #"file="\#(escaped(file))""#
        if let line = testCase.line { xml += #" line="\#(line)""# }
        if let failure = testCase.failure {
          xml += ">\n"
          xml += #"      <failure message="\#(escaped(failure.message))">"#
          xml += escaped(failure.detail) + "</failure>\n"
          xml += "    </testcase>\n"
        } else {
          xml += "/>\n"
        }
      }
      xml += "  </testsuite>\n"
    }
    return xml + "</testsuites>"
  }

  /// Text as XML character data or an attribute value: the five markup characters escaped, and
  /// the control characters XML 1.0 cannot hold at all replaced.
  static func escaped(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&apos;"
      case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
      case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
        result += "\u{FFFD}"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}

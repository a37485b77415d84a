/// Names the parts of two values that differ, so a failing assertion shows `count: 1 → 2`
/// instead of two whole states to compare by eye.
enum StateDifference {
  static func lines(expected: Any, actual: Any) -> [String] {
    var lines: [String] = []
    collect(expected, actual, path: "", into: &lines)
    return lines.isEmpty ? ["  (values differ but print the same)"] : lines
  }

  private static func collect(
    _ expected: Any, _ actual: Any, path: String, into lines: inout [String]
  ) {
    let expectedMirror = Mirror(reflecting: expected)
    let actualMirror = Mirror(reflecting: actual)
    let comparable =
      expectedMirror.displayStyle == .struct && actualMirror.displayStyle == .struct
      && expectedMirror.children.map(\.label) == actualMirror.children.map(\.label)
    guard comparable else {
      let expectedText = String(reflecting: expected)
      let actualText = String(reflecting: actual)
      if expectedText != actualText {
        lines.append("  \(path.isEmpty ? "state" : path): \(expectedText) → \(actualText)")
      }
      return
    }
    for (expectedChild, actualChild) in zip(expectedMirror.children, actualMirror.children) {
      let label = expectedChild.label ?? "?"
      collect(
        expectedChild.value, actualChild.value, path: path.isEmpty ? label : "\(path).\(label)",
        into: &lines)
    }
  }
}

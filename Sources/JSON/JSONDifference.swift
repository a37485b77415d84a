/// How an actual JSON value differs from an expected one, as TCA's `TestStore` shows a state
/// that does not match: `−` lines for what was expected, `+` lines for what is there, the
/// containers they sit in as context, and unchanged neighbours counted, not shown.
///
/// ```swift
/// let difference = JSONDifference(
///   expected: ["count": 1, "favoritePrimes": [3]],
///   actual: ["count": 1, "favoritePrimes": [2, 3]])
/// difference.lines
/// // {
/// //   favoritePrimes: [
/// // +   [0]: 2
/// //     … (1 unchanged)
/// //   ]
/// //   … (1 unchanged)
/// // }
/// difference.changes  // [Change(path: "/favoritePrimes/0", expected: nil, actual: 2)]
/// ```
///
/// Array elements are aligned the way ``JSONPatch/diff(from:to:)`` aligns them (a common
/// prefix and suffix, then elements with the same `id`, then a shortest edit script), so an
/// insertion shows as one `+` line rather than as every later element changed.
@_spi(Hosting)
public struct JSONDifference: Sendable, Equatable {
  /// One value that differs, by its JSON Pointer: `expected` is nil where something was added,
  /// `actual` where something was removed. A removed array element's index is its index in
  /// the expected array; every other index is in the actual one.
  public struct Change: Sendable, Equatable {
    public let path: String
    public let expected: JSONValue?
    public let actual: JSONValue?

    public init(path: String, expected: JSONValue?, actual: JSONValue?) {
      self.path = path
      self.expected = expected
      self.actual = actual
    }
  }

  public private(set) var changes: [Change] = []
  /// The report, without a trailing newline on any line; empty when the values are equal.
  public private(set) var lines: [String] = []

  public var isEmpty: Bool { changes.isEmpty }

  /// Longest value shown on one line, in characters; a longer one is cut with `…`.
  public static let maximumShownCharacters = 120

  public init(expected: JSONValue, actual: JSONValue) {
    guard expected != actual else { return }
    compare(expected, actual, label: nil, path: "", depth: 0)
  }

  private mutating func compare(
    _ expected: JSONValue, _ actual: JSONValue, label: String?, path: String, depth: Int
  ) {
    switch (expected, actual) {
    case (.object(let expectedObject), .object(let actualObject)):
      line(" ", depth, opening: label, "{")
      compareMembers(expectedObject, actualObject, path: path, depth: depth + 1)
      line(" ", depth, "}")
    case (.array(let expectedElements), .array(let actualElements)):
      line(" ", depth, opening: label, "[")
      compareElements(expectedElements, actualElements, path: path, depth: depth + 1)
      line(" ", depth, "]")
    default:
      line("−", depth, opening: label, Self.shown(expected))
      line("+", depth, opening: label, Self.shown(actual))
      changes.append(Change(path: path, expected: expected, actual: actual))
    }
  }

  private mutating func compareMembers(
    _ expected: JSONObject, _ actual: JSONObject, path: String, depth: Int
  ) {
    var unchanged = 0
    for (key, value) in expected {
      let memberPath = path + "/" + JSONPointer.escape(key)
      if let actualValue = actual[key] {
        if actualValue == value {
          unchanged += 1
          continue
        }
        flushUnchanged(&unchanged, depth)
        compare(value, actualValue, label: Self.label(key), path: memberPath, depth: depth)
      } else {
        flushUnchanged(&unchanged, depth)
        line("−", depth, opening: Self.label(key), Self.shown(value))
        changes.append(Change(path: memberPath, expected: value, actual: nil))
      }
    }
    flushUnchanged(&unchanged, depth)
    for (key, value) in actual where expected[key] == nil {
      line("+", depth, opening: Self.label(key), Self.shown(value))
      changes.append(
        Change(path: path + "/" + JSONPointer.escape(key), expected: nil, actual: value))
    }
  }

  private mutating func compareElements(
    _ expected: [JSONValue], _ actual: [JSONValue], path: String, depth: Int
  ) {
    var unchanged = 0
    for pair in ArrayAlignment(expected, actual).pairs {
      switch pair {
      case .kept:
        unchanged += 1
      case .changed(let old, let new):
        flushUnchanged(&unchanged, depth)
        compare(expected[old], actual[new], label: "[\(new)]", path: "\(path)/\(new)", depth: depth)
      case .removed(let old):
        flushUnchanged(&unchanged, depth)
        line("−", depth, opening: "[\(old)]", Self.shown(expected[old]))
        changes.append(Change(path: "\(path)/\(old)", expected: expected[old], actual: nil))
      case .inserted(let new):
        flushUnchanged(&unchanged, depth)
        line("+", depth, opening: "[\(new)]", Self.shown(actual[new]))
        changes.append(Change(path: "\(path)/\(new)", expected: nil, actual: actual[new]))
      }
    }
    flushUnchanged(&unchanged, depth)
  }

  private mutating func flushUnchanged(_ count: inout Int, _ depth: Int) {
    guard count > 0 else { return }
    line(" ", depth, "… (\(count) unchanged)")
    count = 0
  }

  private mutating func line(
    _ mark: String, _ depth: Int, opening label: String? = nil, _ text: String
  ) {
    let indent = String(repeating: "  ", count: depth)
    lines.append(mark + " " + indent + (label.map { "\($0): " } ?? "") + text)
  }

  /// A member's name as written: bare when it is a plain identifier, else as a JSON string.
  private static func label(_ key: String) -> String {
    let plain =
      !key.isEmpty
      && key.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
          || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
      }
    return plain ? key : JSONValue.string(key).jsonString
  }

  private static func shown(_ value: JSONValue) -> String {
    let text = value.jsonString
    guard text.count > maximumShownCharacters else { return text }
    return String(text.prefix(maximumShownCharacters - 1)) + "…"
  }
}

/// Which elements of two arrays correspond, as a walk over both in order: the
/// `ArrayComparison` that ``JSONPatch/diff(from:to:)`` follows too.
struct ArrayAlignment {
  enum Pair: Equatable {
    case kept(old: Int, new: Int)
    case changed(old: Int, new: Int)
    case removed(old: Int)
    case inserted(new: Int)
  }

  private(set) var pairs: [Pair] = []

  init(_ old: [JSONValue], _ new: [JSONValue]) {
    let comparison = ArrayComparison(old, new)
    pairs = (0..<comparison.prefix).map { .kept(old: $0, new: $0) }
    let (oldMiddle, newMiddle) = (comparison.oldMiddle, comparison.newMiddle)
    switch comparison.matching {
    case .pairwise: pairPairwise(oldMiddle, newMiddle)
    case .identity(let matches): pairByIdentity(oldMiddle, newMiddle, matches)
    case .editScript(let script): pair(oldMiddle, newMiddle, following: script)
    }
    let suffix = comparison.suffix
    pairs += (0..<suffix).map { .kept(old: old.count - suffix + $0, new: new.count - suffix + $0) }
  }

  private mutating func pairPairwise(_ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>) {
    let paired = min(old.count, new.count)
    for offset in 0..<paired {
      append(old: old.startIndex + offset, new: new.startIndex + offset, old, new)
    }
    pairs += (paired..<old.count).map { .removed(old: old.startIndex + $0) }
    pairs += (paired..<new.count).map { .inserted(new: new.startIndex + $0) }
  }

  /// Between two elements that stay, the old ones that went (or moved) are removed before the
  /// new ones that came (or moved) are inserted.
  private mutating func pairByIdentity(
    _ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>, _ matches: IdentityMatches
  ) {
    var nextOld = 0
    for newOffset in 0..<new.count {
      guard let oldOffset = matches.stayingOldOffset[newOffset] else {
        pairs.append(.inserted(new: new.startIndex + newOffset))
        continue
      }
      pairs += (nextOld..<oldOffset).map { .removed(old: old.startIndex + $0) }
      append(old: old.startIndex + oldOffset, new: new.startIndex + newOffset, old, new)
      nextOld = oldOffset + 1
    }
    pairs += (nextOld..<old.count).map { .removed(old: old.startIndex + $0) }
  }

  private mutating func pair(
    _ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>, following script: EditScript
  ) {
    var oldIndex = old.startIndex
    var newIndex = new.startIndex
    for run in script.runs {
      let paired = min(run.deleted, run.inserted)
      for offset in 0..<paired { append(old: oldIndex + offset, new: newIndex + offset, old, new) }
      pairs += (paired..<run.deleted).map { .removed(old: oldIndex + $0) }
      pairs += (paired..<run.inserted).map { .inserted(new: newIndex + $0) }
      pairs += (0..<run.kept).map {
        .kept(old: oldIndex + run.deleted + $0, new: newIndex + run.inserted + $0)
      }
      oldIndex += run.deleted + run.kept
      newIndex += run.inserted + run.kept
    }
  }

  private mutating func append(
    old oldIndex: Int, new newIndex: Int, _ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>
  ) {
    pairs.append(
      old[oldIndex] == new[newIndex]
        ? .kept(old: oldIndex, new: newIndex) : .changed(old: oldIndex, new: newIndex))
  }
}

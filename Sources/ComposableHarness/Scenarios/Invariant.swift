import JSON

/// A check on a store's state: `/count <= 5`, `length(/favoritePrimes) <= 3`,
/// `/status in ["idle","loading"]`. A scenario's `check` step and `simulate --check` read it.
package struct Invariant: Sendable, Equatable, CustomStringConvertible {
  package enum Operator: String, Sendable, CaseIterable {
    // Two-character operators first, so `<=` is not read as `<` then `=…`.
    case equal = "=="
    case notEqual = "!="
    case lessOrEqual = "<="
    case greaterOrEqual = ">="
    case less = "<"
    case greater = ">"
    case isIn = "in"
  }

  /// As given: what a report names the check by.
  package let text: String
  package let pointer: JSONPointer
  /// Whether the check is on the size of the value (`length(…)`): an array's or object's
  /// count, a string's characters.
  package let measuresLength: Bool
  package let op: Operator
  package let operand: JSONValue

  package var description: String { text }

  package init(_ text: String) throws(InvariantError) {
    self.text = text
    var rest = Substring(text).drop { $0 == " " }
    measuresLength = rest.hasPrefix("length(")
    let pointerText: Substring
    if measuresLength {
      rest = rest.dropFirst("length(".count)
      guard let close = rest.firstIndex(of: ")") else {
        throw InvariantError(text, "length( needs its )")
      }
      pointerText = rest[..<close]
      rest = rest[rest.index(after: close)...]
    } else {
      pointerText = rest.prefix { $0 != " " }
      rest = rest.dropFirst(pointerText.count)
    }
    do {
      pointer = try JSONPointer(String(pointerText))
    } catch {
      throw InvariantError(text, "\(pointerText) is not a JSON pointer (/count): \(error.message)")
    }
    rest = rest.drop { $0 == " " }
    guard let op = Operator.allCases.first(where: { rest.hasPrefix($0.rawValue) }) else {
      throw InvariantError(
        text,
        "the operator is one of \(Operator.allCases.map(\.rawValue).joined(separator: " "))")
    }
    self.op = op
    let json = rest.dropFirst(op.rawValue.count)
    do {
      operand = try JSONParser.parse(String(json))
    } catch {
      throw InvariantError(text, "what \(op.rawValue) compares with is not JSON: \(error)")
    }
    if op == .isIn, operand.arrayValue == nil {
      throw InvariantError(text, "in compares with an array: /status in [\"idle\",\"done\"]")
    }
  }

  /// The value checked in `state` (its length for `length(…)`); nil when the pointer names
  /// nothing, or `length` a value that has none.
  package func subject(in state: JSONValue) -> JSONValue? {
    guard let value = state.value(at: pointer) else { return nil }
    guard measuresLength else { return value }
    switch value {
    case .array(let items): return .int(items.count)
    case .object(let members): return .int(members.count)
    case .string(let text): return .int(text.count)
    default: return nil
    }
  }

  /// Whether `state` keeps the invariant; a missing value keeps none but `!=`.
  package func holds(in state: JSONValue) -> Bool {
    guard let value = subject(in: state) else { return op == .notEqual }
    switch op {
    case .equal: return value == operand
    case .notEqual: return value != operand
    case .isIn: return operand.arrayValue?.contains(value) ?? false
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      guard let order = Self.order(value, operand) else { return false }
      switch op {
      case .less: return order < 0
      case .lessOrEqual: return order <= 0
      case .greater: return order > 0
      default: return order >= 0
      }
    }
  }

  /// −1, 0 or 1 for two numbers or two strings; nil for anything else.
  private static func order(_ a: JSONValue, _ b: JSONValue) -> Int? {
    if let x = a.doubleValue, let y = b.doubleValue {
      if case .int(let i) = a, case .int(let j) = b { return i < j ? -1 : i == j ? 0 : 1 }
      return x < y ? -1 : x == y ? 0 : 1
    }
    if let x = a.stringValue, let y = b.stringValue { return x < y ? -1 : x == y ? 0 : 1 }
    return nil
  }

  /// `check /count <= 5 broke: /count is 6`.
  package func brokenMessage(in state: JSONValue) -> String {
    let what = measuresLength ? "length(\(pointer))" : "\(pointer)"
    let value = subject(in: state).map { $0.excerpt } ?? "absent"
    return "check \(text) broke: \(what) is \(value)"
  }
}

package struct InvariantError: Error, Sendable, CustomStringConvertible {
  package let description: String
  init(_ text: String, _ problem: String) { description = "check \"\(text)\": \(problem)" }
}

import ComposableTestSupport
import JSON

/// Random JSON documents and random edits of them.
struct RandomJSON {
  var generator: SeededGenerator

  init(seed: UInt64) {
    generator = SeededGenerator(seed: seed)
  }

  /// Keys chosen to exercise pointer escaping, emptiness, numbers-as-keys and non-ASCII.
  static let keys = [
    "a", "b", "c", "id", "name", "", "~", "/", "a/b", "m~n", "0", "1", "é", "日本", "count",
  ]

  mutating func int(in range: ClosedRange<Int>) -> Int {
    Int.random(in: range, using: &generator)
  }

  mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &generator) < probability
  }

  mutating func key() -> String {
    Self.keys.randomElement(using: &generator)!
  }

  mutating func string() -> String {
    let pieces = [
      "x", "hello", "\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "😀", " ", "/", "~", "\u{7F}",
      "abcdefghijklmnopq",
    ]
    return (0..<int(in: 0...4)).map { _ in pieces.randomElement(using: &generator)! }.joined()
  }

  mutating func double() -> Double {
    switch int(in: 0...3) {
    case 0: return Double(int(in: -1000...1000)) / 8
    case 1: return Double.random(in: -1e6...1e6, using: &generator)
    default:
      while true {
        let candidate = Double(bitPattern: generator.next())
        if candidate.isFinite {
          return candidate
        }
      }
    }
  }

  mutating func scalar() -> JSONValue {
    switch int(in: 0...5) {
    case 0: return .null
    case 1: return .bool(chance(0.5))
    case 2: return .int(chance(0.8) ? int(in: -100...100) : Int(bitPattern: UInt(generator.next())))
    case 3: return .number(double())
    default: return .string(string())
    }
  }

  mutating func value(depth: Int = 4) -> JSONValue {
    guard depth > 0, chance(0.6) else { return scalar() }
    if chance(0.5) {
      return .array((0..<int(in: 0...5)).map { _ in value(depth: depth - 1) })
    }
    var object = JSONObject()
    for _ in 0..<int(in: 0...5) {
      object[key()] = value(depth: depth - 1)
    }
    return .object(object)
  }

  /// Applies one to three random edits somewhere in `document`.
  mutating func mutated(_ document: JSONValue) -> JSONValue {
    var result = document
    for _ in 0..<int(in: 1...3) {
      edit(&result, depth: 0)
    }
    return result
  }

  /// One edit, at this level or further down.
  mutating func edit(_ value: inout JSONValue, depth: Int) {
    switch value {
    case .object(var object):
      if !object.isEmpty, chance(0.5) {
        let key = object.keys.randomElement(using: &generator)!
        var child = object[key]!
        edit(&child, depth: depth + 1)
        object[key] = child
      } else {
        switch int(in: 0...2) {
        case 0: object[key()] = self.value(depth: 2)
        case 1:
          if let key = object.keys.randomElement(using: &generator) {
            object[key] = nil
          }
        default:
          value = scalar()
          return
        }
      }
      value = .object(object)
    case .array(var array):
      if !array.isEmpty, chance(0.5) {
        let index = int(in: 0...array.count - 1)
        edit(&array[index], depth: depth + 1)
      } else {
        switch int(in: 0...4) {
        case 0: array.append(self.value(depth: 2))
        case 1: array.insert(self.value(depth: 2), at: int(in: 0...array.count))
        case 2:
          if !array.isEmpty {
            array.remove(at: int(in: 0...array.count - 1))
          }
        case 3:
          if array.count > 1 {
            array.removeSubrange(0..<int(in: 1...array.count))
          }
        default: array.reverse()
        }
      }
      value = .array(array)
    default:
      value = chance(0.3) ? self.value(depth: 2) : scalar()
    }
  }
}

import ComposableRuntime
import JSON

/// Values for a JSON Schema, as `simulate` sends them: mostly ordinary, often an edge (empty and
/// long strings, the integers' extremes within the schema's bounds, empty and larger arrays),
/// and, where a field names an element or a position (`id`, `index`), one the state holds.
struct SchemaValues {
  let random: SeededRandom
  /// What the state holds right now: its element ids and its arrays' sizes.
  var stateIDs: [JSONValue] = []
  var arraySizes: [Int] = []
  /// The integers the state holds, which a scripted dependency may be asked about.
  var numbers: [Int] = []

  /// A draw out of `count`.
  func pick(_ count: Int) -> Int { random.int(in: 0...(count - 1)) }
  func chance(_ percent: Int) -> Bool { random.int(in: 0...99) < percent }
  func element<T>(_ items: [T]) -> T { items[pick(items.count)] }
  /// One of `items`, each as likely as its weight; nil when no weight is above 0.
  func weighted<T>(_ items: [(T, Int)]) -> T? {
    let total = items.reduce(0) { $0 + $1.1 }
    guard total > 0 else { return nil }
    var roll = random.int(in: 0...(total - 1))
    for (item, weight) in items {
      if roll < weight { return item }
      roll -= weight
    }
    return nil
  }

  /// A value `schema` accepts, for a member named `name` (how ids and positions are told).
  func value(_ schema: JSONValue, name: String = "", depth: Int = 0) -> JSONValue {
    guard let object = schema.objectValue else { return .null }
    if let constant = object["const"] { return constant }
    if let cases = object["enum"]?.arrayValue, !cases.isEmpty { return element(cases) }
    if let options = (object["oneOf"] ?? object["anyOf"])?.arrayValue, !options.isEmpty {
      return value(element(options), name: name, depth: depth)
    }
    let types = object["type"].map { $0.stringArray ?? [$0.stringValue ?? ""] } ?? []
    switch types.isEmpty ? "" : element(types) {
    case "null": return .null
    case "boolean": return .bool(chance(50))
    case "integer": return .int(integer(object, name: name))
    case "number": return chance(50) ? .int(integer(object, name: name)) : .number(number())
    case "string": return .string(string(object, name: name))
    case "array":
      let item = object["items"] ?? [:]
      let count = arrayCount(name: name, depth: depth)
      return .array((0..<count).map { _ in value(item, name: singular(name), depth: depth + 1) })
    case "object":
      var members: JSONObject = [:]
      let required = Set(object["required"]?.stringArray ?? [])
      for (key, member) in object["properties"]?.objectValue ?? [:]
      where required.contains(key) || chance(50) {
        members[key] = value(member, name: key, depth: depth + 1)
      }
      return .object(members)
    default: return .null
    }
  }

  /// Whether a member names an element of the state (`id`, `todoID`, `ids`).
  static func namesElement(_ name: String) -> Bool {
    let lower = name.lowercased()
    return lower == "id" || lower == "ids" || lower.hasSuffix("id") || lower.hasSuffix("ids")
  }

  private static func namesPosition(_ name: String) -> Bool {
    let lower = name.lowercased()
    return lower.hasPrefix("ind") || lower.hasPrefix("offset") || lower.hasPrefix("position")
  }

  /// `indices` → `index`: an array's items are named like one of it.
  private func singular(_ name: String) -> String {
    name.hasSuffix("ices")
      ? String(name.dropLast(4)) + "ex" : name.hasSuffix("s") ? String(name.dropLast()) : name
  }

  private func integer(_ schema: JSONObject, name: String) -> Int {
    // An id the state does not hold would rightly be refused: not a valid action.
    let ids = stateIDs.compactMap(\.intValue)
    if Self.namesElement(name), !ids.isEmpty { return element(ids) }
    if Self.namesPosition(name), let size = arraySizes.filter({ $0 > 0 }).max(), chance(80) {
      return pick(size)
    }
    let low = schema["minimum"]?.intValue ?? Int.min
    let high = schema["maximum"]?.intValue ?? Int.max
    let edges = [low, high, 0, 1, -1, low &+ 1, high &- 1].filter { (low...high).contains($0) }
    if chance(15), let edge = edges.isEmpty ? nil : element(edges) { return edge }
    let small = max(low, -5)...min(high, 20)
    return small.isEmpty ? random.int(in: low...high) : random.int(in: small)
  }

  private func number() -> Double {
    element([0, -0.5, 0.25, 1.5, 1e9, -1e9, 3.75])
  }

  private func string(_ schema: JSONObject, name: String) -> String {
    let ids = stateIDs.compactMap(\.stringValue)
    if Self.namesElement(name), !ids.isEmpty { return element(ids) }
    if schema["contentEncoding"]?.stringValue == "base64" {
      return element(["", "AA==", "aGVsbG8=", "/w==", "eyJhIjoxfQ=="])
    }
    switch random.int(in: 0...9) {
    case 0: return ""
    case 1: return String(repeating: "long ", count: 200)
    case 2: return "é 🙂 \"quoted\" \\ \n"
    case 3: return "{\"type\":\"not an action\"}"
    default:
      let words = ["a", "milk", "Upbit", "KRW-BTC", "x y", "42", "null", "todo"]
      return (0...pick(3)).map { _ in element(words) }.joined(separator: " ")
    }
  }

  private func arrayCount(name: String, depth: Int) -> Int {
    if depth > 3 { return 0 }
    switch random.int(in: 0...9) {
    case 0: return 0
    case 1: return 12
    default: return random.int(in: 1...3)
    }
  }
}

extension SchemaValues {
  /// The ids of the state's elements (the `id` members of objects in arrays) and its arrays'
  /// sizes, which generated ids and positions are drawn from.
  mutating func read(_ state: JSONValue) {
    stateIDs = []
    arraySizes = []
    numbers = []
    collect(state)
  }

  private mutating func collect(_ value: JSONValue) {
    switch value {
    case .array(let items):
      arraySizes.append(items.count)
      for item in items {
        if let id = item["id"], id.intValue != nil || id.stringValue != nil { stateIDs.append(id) }
        collect(item)
      }
    case .object(let members):
      for (_, member) in members { collect(member) }
    case .int(let number):
      if numbers.count < 64 { numbers.append(number) }
    default:
      break
    }
  }
}

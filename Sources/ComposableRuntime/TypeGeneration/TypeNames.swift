/// The names of a module's declarations: identifiers in both languages, derived from the store
/// and the path where a type was found, and unique.
struct TypeNames {
  private var taken: Set<String> = []

  /// `base`, or when an earlier declaration has it, `base2`, `base3`, … Two paths can meet in
  /// one name (`a_b` and `aB` are both `AB`); numbering keeps the first path's name stable.
  mutating func claim(_ base: String) -> String {
    var name = base
    var number = 2
    while !taken.insert(name).inserted {
      name = "\(base)\(number)"
      number += 1
    }
    return name
  }

  /// `counter.countChanged` → `CounterCountChanged`: ASCII letters and digits kept, every
  /// other character a word break, each word's first letter capitalized. A name that would
  /// start with a digit, or be empty, starts with `T`.
  static func pascalCase(_ text: String) -> String {
    let words = text.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
    let name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    return name.first?.isLetter == true ? name : "T" + name
  }
}

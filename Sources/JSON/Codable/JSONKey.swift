/// A coding key for positions that have no key type of their own: array indices and the
/// `super` key of class hierarchies.
struct JSONKey: CodingKey {
  /// Nil for an index, whose text is made only when asked for: a decoder makes a key for every
  /// element it reads, and a path is printed only in an error.
  private let name: String?
  let intValue: Int?

  var stringValue: String { name ?? String(intValue!) }

  init(stringValue: String) {
    self.name = stringValue
    self.intValue = nil
  }

  init(intValue: Int) {
    self.name = nil
    self.intValue = intValue
  }

  static let `super` = JSONKey(stringValue: "super")
}

extension JSONPointer {
  /// The pointer to the value at a coding path, as error messages name it.
  init(codingPath: [any CodingKey]) {
    self.init(tokens: codingPath.map(\.stringValue))
  }
}

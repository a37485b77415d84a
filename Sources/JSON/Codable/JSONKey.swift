/// A coding key for positions that have no key type of their own: array indices and the
/// `super` key of class hierarchies.
struct JSONKey: CodingKey {
  let stringValue: String
  let intValue: Int?

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }

  init(intValue: Int) {
    self.stringValue = String(intValue)
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

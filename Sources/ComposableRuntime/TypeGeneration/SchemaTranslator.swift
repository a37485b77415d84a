import JSON
import Protocol

/// Turns the JSON Schemas a store's descriptor holds into type expressions, declaring a record
/// for every object schema it meets.
///
/// It reads the subset of JSON Schema that `TypeSchema` and `Schema` write, and what a
/// hand-written `JSONSchemaDescribed` is likely to: `type` (one or a list), `enum` and `const`
/// of strings, `oneOf`/`anyOf`, `items`, `properties` with `required`, `additionalProperties`.
/// Anything else becomes ``TypeExpression/unknown(reason:)`` rather than a guess.
///
/// A nested object is named after its path: the name given for where it stands, then `Item`
/// for an array's element, `Value` for a map's, the member's name for a property, and `Option1`,
/// `Option2`, … (by position) for the records of a union that has more than one. A schema with
/// a `title` is named by it instead.
struct SchemaTranslator {
  private(set) var declarations: [TypeDeclaration] = []
  private var names = TypeNames()

  /// Claims `base` (or a numbered variant) for a declaration made later.
  mutating func claim(_ base: String) -> String {
    names.claim(base)
  }

  /// Declares `schema` under `base`: a record when it is an object schema, else an alias.
  /// Returns the name it got.
  mutating func declare(_ schema: JSONValue, named base: String, documentation: String?)
    -> String
  {
    let name = claim(base)
    if let fields = recordFields(of: schema) {
      declareRecord(name, documentation: documentation, fields: fields)
    } else {
      declarations.append(
        TypeDeclaration(
          name, documentation: documentation, .alias(expression(for: schema, named: name))))
    }
    return name
  }

  /// Declares a record under the claimed `name` whose members are `fields`, each typed from
  /// its schema; the records their schemas need are declared first.
  mutating func declareRecord(
    _ name: String, documentation: String?, fields: [ActionDescriptor.Field]
  ) {
    let members = self.members(of: fields, in: name)
    declarations.append(TypeDeclaration(name, documentation: documentation, .record(members)))
  }

  /// Declares a record under `base`, or names the record declared before whose documentation
  /// and members are the same: one type met in several places (a failure, a list's item) is
  /// declared once, under the name of the place it was first met.
  private mutating func declareRecordOnce(
    _ base: String, documentation: String?, fields: [ActionDescriptor.Field]
  ) -> String {
    let name = claim(base)
    let members = self.members(of: fields, in: name)
    if let same = declarations.first(where: {
      $0.body == .record(members) && $0.documentation == documentation
    }) {
      return same.name
    }
    declarations.append(TypeDeclaration(name, documentation: documentation, .record(members)))
    return name
  }

  private mutating func members(of fields: [ActionDescriptor.Field], in name: String)
    -> [TypeField]
  {
    fields.map { field in
      TypeField(
        field.name, expression(for: field.schema, named: name + TypeNames.pascalCase(field.name)),
        required: field.isRequired, documentation: field.schema["description"]?.stringValue)
    }
  }

  mutating func declareAlias(_ name: String, documentation: String, _ type: TypeExpression) {
    declarations.append(TypeDeclaration(name, documentation: documentation, .alias(type)))
  }

  /// The type of the values `schema` accepts; `name` is the one a record found here gets.
  mutating func expression(for schema: JSONValue, named name: String) -> TypeExpression {
    guard case .object(let object) = schema else {
      // `true` accepts anything, `false` nothing.
      return schema == false ? .union([]) : .unknown(reason: "any JSON value")
    }
    if let constant = object["const"] { return literal([constant]) }
    if let values = object["enum"]?.arrayValue { return literal(values) }
    if let members = (object["oneOf"] ?? object["anyOf"])?.arrayValue {
      return union(members, named: name)
    }
    switch object["type"] {
    case .string(let type)?:
      return expression(ofType: type, schema, named: name)
    case .array(let types)?:
      return .union(
        of: types.map { type in
          type.stringValue.map { expression(ofType: $0, schema, named: name) }
            ?? .unknown(reason: "a type that is not a string")
        })
    default:
      let unread = ["$ref", "allOf", "not", "if"].filter { object[$0] != nil }
      return .unknown(
        reason: unread.isEmpty
          ? "any JSON value" : unread.joined(separator: ", ") + " is not translated")
    }
  }

  /// Strings, and `null` among them, are literals; other values have no literal type in Python.
  private func literal(_ values: [JSONValue]) -> TypeExpression {
    let strings = values.compactMap(\.stringValue)
    let nulls = values.filter(\.isNull).count
    guard strings.count + nulls == values.count else {
      return .unknown(reason: "an enum or const of values other than strings")
    }
    return .union(of: [.literal(strings)] + (nulls > 0 ? [.null] : []))
  }

  /// A member that is an action's wire form (an object whose `type` is a constant, as a nested
  /// action's cases are) is named after that type; any other after its position.
  private mutating func union(_ members: [JSONValue], named name: String) -> TypeExpression {
    let isNull = { (member: JSONValue) in member["type"] == "null" }
    // Only a record takes a name: one among strings or numbers needs no suffix.
    let records = members.filter { recordFields(of: $0) != nil }
    var position = 0
    return .union(
      of: members.map { member in
        if isNull(member) { return .null }
        position += 1
        let suffix =
          member["properties"]?["type"]?["const"]?.stringValue.map(TypeNames.pascalCase)
          ?? "Option\(position)"
        return expression(for: member, named: records.count <= 1 ? name : name + suffix)
      })
  }

  private mutating func expression(ofType type: String, _ schema: JSONValue, named name: String)
    -> TypeExpression
  {
    switch type {
    case "string": return .string
    case "integer": return .integer
    case "number": return .number
    case "boolean": return .boolean
    case "null": return .null
    case "array":
      guard let items = schema["items"] else {
        return .array(.unknown(reason: "an array whose items have no schema"))
      }
      return .array(expression(for: items, named: name + "Item"))
    case "object":
      if let fields = recordFields(of: schema) {
        // A schema's title names the type wherever it is met (a type shared by many places).
        let base = schema["title"]?.stringValue.map(TypeNames.pascalCase) ?? name
        return .reference(
          declareRecordOnce(base, documentation: schema["description"]?.stringValue, fields: fields)
        )
      }
      switch schema["additionalProperties"] {
      case .object(let values)? where (schema["properties"]?.objectValue ?? [:]).isEmpty:
        return .map(expression(for: .object(values), named: name + "Value"))
      case .object?:
        return .unknown(reason: "an object with both properties and additionalProperties")
      default:
        return .map(.unknown(reason: "any JSON value"))
      }
    default:
      return .unknown(reason: "the type \(type) is not translated")
    }
  }

  /// The members of an object schema that lists its properties and allows no others of a
  /// schema of their own (those would be a map, or an object neither language can type).
  private func recordFields(of schema: JSONValue) -> [ActionDescriptor.Field]? {
    guard schema["type"] == "object", let properties = schema["properties"]?.objectValue,
      schema["additionalProperties"]?.objectValue == nil
    else { return nil }
    let required = schema["required"]?.stringArray ?? []
    return properties.map {
      ActionDescriptor.Field($0.key, $0.value, required: required.contains($0.key))
    }
  }
}

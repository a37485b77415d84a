@_spi(Hosting) import JSON

/// A step's `edit` expectation: RFC 6902 operations applied to the state before the step, so
/// a step changes an array without restating it, as a TestStore test writes
/// `$0.todos[id: 3]?.isComplete = true` or `$0.favorites.append(5)`.
///
/// ```json
/// {"send":"primeModal.saveFavoritePrimeTapped",
///  "edit":[{"op":"add","path":"/favoritePrimes/-","value":5}]}
/// {"send":{"type":"toggle","id":3},
///  "edit":[{"op":"replace","path":"/todos/[id=3]/isComplete","value":true}]}
/// ```
///
/// Paths are JSON Pointers, with `-` for the end of an array (RFC 6901), plus one addition: a
/// token `[id=V]` inside an array names its element whose `id` member is the JSON value `V`
/// (`[id=3]`, `[id="a"]`); it is resolved to that element's index before each operation.
struct StateEdit {
  private let operations: [JSONValue]

  /// Checks the operations' form when the file is read, so a typo fails before any step runs.
  init(_ value: JSONValue) throws(ScenarioError) {
    guard let operations = value.arrayValue, !operations.isEmpty else {
      throw ScenarioError("\"edit\" must be a non-empty array of JSON Patch operations")
    }
    for (index, operation) in operations.enumerated() {
      do throws(JSONPatchError) {
        _ = try JSONPatchOperation(json: operation)
      } catch {
        throw ScenarioError("\"edit\" operation \(index): \(error.message)")
      }
    }
    self.operations = operations
  }

  /// `state` with the operations applied in order, each path's `[id=V]` tokens resolved
  /// against the state as the operations before it left it.
  func applied(to state: JSONValue) throws(ScenarioError) -> JSONValue {
    var document = state
    for (index, operation) in operations.enumerated() {
      guard case .object(var members) = operation else { continue }
      func failure(_ message: String) -> ScenarioError {
        ScenarioError("\"edit\" operation \(index): \(message)")
      }
      for key in ["path", "from"] {
        guard let path = members[key]?.stringValue else { continue }
        do throws(ScenarioError) {
          members[key] = .string(try Self.resolved(path, in: document))
        } catch {
          throw failure(error.message)
        }
      }
      do throws(JSONPatchError) {
        document = try JSONPatch.apply([JSONPatchOperation(json: .object(members))], to: document)
      } catch {
        throw failure(error.message)
      }
    }
    return document
  }

  /// `path` with each `[id=V]` token inside an array replaced by that element's index.
  static func resolved(_ path: String, in document: JSONValue) throws(ScenarioError) -> String {
    let pointer: JSONPointer
    do throws(JSONPointerError) {
      pointer = try JSONPointer(path)
    } catch {
      throw ScenarioError(error.message)
    }
    var current: JSONValue? = document
    var tokens: [String] = []
    for token in pointer.tokens {
      var token = token
      if case .array(let elements)? = current, let id = identifier(in: token) {
        guard let index = elements.firstIndex(where: { $0["id"] == id }) else {
          throw ScenarioError(
            "no element with id \(id.jsonString) in \(JSONPointer(tokens: tokens))")
        }
        token = String(index)
      }
      tokens.append(token)
      current = current.flatMap { value in
        switch value {
        case .object(let object): object[token]
        case .array(let elements):
          Int(token).flatMap { elements.indices.contains($0) ? elements[$0] : nil }
        default: nil
        }
      }
    }
    return JSONPointer(tokens: tokens).description
  }

  /// `V` of a `[id=V]` token, parsed as JSON; nil for any other token.
  private static func identifier(in token: String) -> JSONValue? {
    guard token.hasPrefix("[id="), token.hasSuffix("]") else { return nil }
    return try? JSONParser.parse(Array(token.utf8.dropFirst(4).dropLast()))
  }
}

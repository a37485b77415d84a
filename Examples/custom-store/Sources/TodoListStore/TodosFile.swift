import ComposableRuntime
import TodoListFeature

/// Why the saved list could not be read or written, worded for the state's `storageError`.
public struct TodosFileError: Error, CustomStringConvertible, Equatable {
  public let description: String
}

/// The list as a JSON file (`[{"id":1,"title":"Buy milk","done":false}]`) in the data
/// directory: the framework's `SavedFile` (atomic saves on the thread pool, the later save
/// winning), with the check that the file holds todos whose ids are unique.
struct TodosFile: Sendable {
  let file: SavedFile

  func load() async throws -> [Todo] {
    let json: JSONValue
    do {
      json = try await file.load()
    } catch let failure as SavedFile.Failure {
      throw TodosFileError(description: "\(failure).")
    }
    let todos: [Todo]
    do {
      todos = try JSONValueDecoder().decode([Todo].self, from: json)
    } catch let error as DecodingError {
      throw corrupt(error.contextMessage)
    }
    // The reducer finds todos by id: a hand-edited file must not make two of them answer.
    var seen = Set<Int>()
    for todo in todos where !seen.insert(todo.id).inserted {
      throw corrupt("id \(todo.id) appears twice")
    }
    return todos
  }

  func save(_ todos: [Todo]) async throws {
    do {
      try await file.save(try JSONValueEncoder().encode(todos))
    } catch let failure as SavedFile.Failure {
      throw TodosFileError(description: "\(failure).")
    }
  }

  /// Names the file as the data folder has it: where that folder is, is the run's choice (a
  /// scenario's is a fresh copy each time), and the screen needs only the name.
  private func corrupt(_ reason: String) -> TodosFileError {
    let name = file.path.split(separator: "/").last.map(String.init) ?? file.path
    return TodosFileError(
      description: "\(name) does not hold a list of todos (\(reason)); the list was kept.")
  }
}

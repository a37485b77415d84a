import ComposableRuntime
import PrimesFeature

#if canImport(Glibc)
  import Glibc
#endif

extension FavoritePrimesStorage {
  /// Favourite primes in a JSON file (`[2,3,5]`), read and written on libuv's thread pool.
  ///
  /// Saving is atomic: the list goes to a new temporary file in the same directory, which is
  /// flushed to disk and then renamed over the old one, so a crash or a full disk leaves either
  /// the old file or the new one, never half of one. Saves started later always win, even if
  /// the thread pool runs two of them out of order.
  public static func file(path: String, threadPool: ThreadPool) -> Self {
    file(SavedFile(path: path, threadPool: threadPool), threadPool: threadPool)
  }

  /// Favourite primes in `savedFile` (``Services/savedFile(_:)``, whose saves a scenario can
  /// make fail), read and written on `threadPool`.
  public static func file(_ savedFile: SavedFile, threadPool: ThreadPool) -> Self {
    let file = FavoritePrimesFile(file: savedFile)
    return Self(
      load: { try await threadPool.run { _ in try file.read() } },
      save: { primes in
        let ticket = file.takeTicket()
        try await threadPool.run { _ in try file.write(primes, ticket: ticket) }
      })
  }
}

/// A failed load or save, worded for the alert that shows it.
public struct FavoritePrimesFileError: Error, CustomStringConvertible, Equatable {
  public let description: String
}

/// The favourites' ``SavedFile``, with the alert's wording and the check that the file holds
/// primes.
struct FavoritePrimesFile: Sendable {
  let file: SavedFile
  var path: String { file.path }

  init(path: String, threadPool: ThreadPool) {
    self.init(file: SavedFile(path: path, threadPool: threadPool))
  }

  init(file: SavedFile) {
    self.file = file
  }

  func takeTicket() -> Int { file.takeTicket() }

  func read() throws(FavoritePrimesFileError) -> [Int] {
    let value: JSONValue
    do {
      value = try file.read()
    } catch {
      switch error {
      case .missing:
        throw FavoritePrimesFileError(description: "No favourite primes saved yet at \(path).")
      case .unreadable(_, let reason):
        throw FavoritePrimesFileError(description: "Cannot read \(path): \(reason).")
      case .notJSON(_, let message):
        throw FavoritePrimesFileError(
          description: "\(path) is not valid JSON (\(message)); the favourites were kept.")
      case .unwritable(_, let reason):
        throw FavoritePrimesFileError(description: "Cannot save to \(path): \(reason).")
      }
    }
    guard case .array(let elements) = value else {
      throw corrupt("it is not a JSON array")
    }
    // At their size: grown by appending, a long list took up to twice that.
    var primes: [Int] = []
    primes.reserveCapacity(elements.count)
    var seen = Set<Int>(minimumCapacity: elements.count)
    for element in elements {
      guard case .int(let number) = element else {
        throw corrupt("\(element.excerpt) is not an integer")
      }
      guard Primality.isPrime(number) else { throw corrupt("\(number) is not a prime") }
      guard seen.insert(number).inserted else { throw corrupt("\(number) is listed twice") }
      primes.append(number)
    }
    return primes
  }

  func write(_ primes: [Int], ticket: Int) throws(FavoritePrimesFileError) {
    do {
      try file.write(.array(primes.map(JSONValue.int)), ticket: ticket)
    } catch {
      throw FavoritePrimesFileError(description: "Cannot save to \(path): \(reason(error)).")
    }
  }

  private func reason(_ failure: SavedFile.Failure) -> String {
    switch failure {
    case .unwritable(_, let reason), .unreadable(_, let reason): reason
    case .missing, .notJSON: failure.description
    }
  }

  private func corrupt(_ reason: String) -> FavoritePrimesFileError {
    FavoritePrimesFileError(
      description: "\(path) does not hold a list of primes (\(reason)); the favourites were kept.")
  }
}

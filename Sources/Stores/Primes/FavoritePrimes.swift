import ComposableDependencies

/// The favourite primes list, saved to and loaded from storage.
@ComposableAction
public enum FavoritePrimesAction: Equatable {
  /// Removes the favourites at these positions; positions out of range are ignored.
  case deleteFavoritePrimes(indices: [Int])
  /// Saves the favourites to <data-dir>/favorite-primes.json, atomically.
  case saveButtonTapped
  /// Loads the favourites from <data-dir>/favorite-primes.json.
  case loadButtonTapped
  /// The favourites that were loaded.
  @SentByEffect
  case loadedFavoritePrimes([Int])
  /// The save succeeded.
  @SentByEffect
  case savedFavoritePrimes
  /// A load or save failed; the favourites were kept.
  @SentByEffect
  case storageFailed(operation: StorageOperation, message: String)
}

public enum StorageOperation: String, Codable, CaseIterable, Sendable {
  case load
  case save
}

/// The last load or save that failed, shown until the next one succeeds.
public struct StorageError: Equatable, Codable, Sendable {
  public var operation: StorageOperation
  public var message: String

  public init(operation: StorageOperation, message: String) {
    self.operation = operation
    self.message = message
  }
}

public struct FavoritePrimesState: Equatable, Sendable {
  public var favoritePrimes: TrackedOrderedSet<Int>
  public var storageError: StorageError?
}

public struct FavoritePrimesReducer: Reducer {
  let storage: FavoritePrimesStorage

  public init(storage: FavoritePrimesStorage) {
    self.storage = storage
  }

  /// The positions a deletion removes, each once, in increasing order: indices name positions
  /// in the list as it was, and out-of-range ones name nothing.
  static func deleted(_ indices: [Int], from favorites: TrackedOrderedSet<Int>) -> [Int] {
    Set(indices.filter(favorites.indices.contains)).sorted()
  }

  public func reduce(into state: inout FavoritePrimesState, action: FavoritePrimesAction)
    -> Effect<FavoritePrimesAction>
  {
    switch action {
    case .deleteFavoritePrimes(let indices):
      for index in Self.deleted(indices, from: state.favoritePrimes).reversed() {
        state.favoritePrimes.remove(at: index)
      }
      return .none

    case .saveButtonTapped:
      let primes = state.favoritePrimes.elements
      return .run { [storage] send in
        try await storage.save(primes)
        await send(.savedFavoritePrimes)
      } catch: { error, send in
        await send(.storageFailed(operation: .save, message: "\(error)"))
      }

    case .loadButtonTapped:
      return .run { [storage] send in
        await send(.loadedFavoritePrimes(try await storage.load()))
      } catch: { error, send in
        await send(.storageFailed(operation: .load, message: "\(error)"))
      }

    case .loadedFavoritePrimes(let primes):
      state.favoritePrimes = TrackedOrderedSet(primes)
      state.storageError = nil
      return .none

    case .savedFavoritePrimes:
      state.storageError = nil
      return .none

    case .storageFailed(let operation, let message):
      state.storageError = StorageError(operation: operation, message: message)
      return .none
    }
  }
}

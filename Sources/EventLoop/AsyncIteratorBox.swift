/// An async iterator held by reference, for `AsyncStream(unfolding:)`, whose closure must be
/// `Sendable` yet pulls from one iterator: the stream calls it from one task at a time.
///
///     let upstream = AsyncIteratorBox(numbers.makeAsyncIterator())
///     let doubled = AsyncStream { await upstream.next().map { $0 * 2 } }
package final class AsyncIteratorBox<Element: Sendable>: @unchecked Sendable {
  private var iterator: AsyncStream<Element>.Iterator

  package init(_ iterator: AsyncStream<Element>.Iterator) { self.iterator = iterator }

  package func next() async -> Element? { await iterator.next() }
}

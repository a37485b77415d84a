/// The identity of a cancellable effect, scoped to the store that runs it.
///
/// Any `Hashable & Sendable` value works as an id; wrapping it keeps `Effect` free of
/// existential generics. Two stores may use the same id without interfering.
/// (`@unchecked` only because `AnyHashable` is not marked `Sendable`; the initializer admits
/// sendable values only.)
public struct EffectID: Hashable, @unchecked Sendable {
  let base: AnyHashable
  private let label: String

  /// The id `base`: ids are equal when their bases are equal and of the same type.
  public init(_ base: some Hashable & Sendable) {
    self.base = AnyHashable(base)
    self.label = String(describing: base)
  }

  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.base == rhs.base }
  public func hash(into hasher: inout Hasher) { hasher.combine(base) }
}

extension EffectID: CustomStringConvertible {
  public var description: String { label }
}

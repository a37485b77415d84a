import Locks

/// The process's one source of random choices, reproducible from its seed (`--seed`).
///
/// SplitMix64: tiny, fast, and statistically sound for picking ids; not for secrets. Choices
/// are drawn under a lock because effects on different tasks may draw at once; their order, and
/// so the sequence each store sees, follows the order the loop runs them in.
public final class SeededRandom: @unchecked Sendable {
  /// The seed the choices follow from (`--seed`, or a random one).
  public let seed: UInt64
  private let lock = Lock()
  private var generator: SplitMix64

  /// A source whose choices follow from `seed`.
  public init(seed: UInt64) {
    self.seed = seed
    generator = SplitMix64(state: seed)
  }

  /// A seed from the system's entropy, for runs not asked to be reproducible.
  public static func randomSeed() -> UInt64 {
    var system = SystemRandomNumberGenerator()
    return system.next()
  }

  /// A number in `range`, drawn under the lock.
  public func int(in range: ClosedRange<Int>) -> Int {
    lock.withLock { Int.random(in: range, using: &generator) }
  }
}

struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }
}

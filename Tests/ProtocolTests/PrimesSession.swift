import ComposableCore
import ComposableTestSupport
import PrimesDefinition
import PrimesFeature
@_spi(Hosting) import Protocol

extension Session {
  /// A session of two stores, "primes" and "other", both the primes feature on `dependencies`:
  /// each instance built is appended to `built`, as `"primes"` or `"primes/<key>"`, and each
  /// given a parked instance's host, as `"primes/<key> (reused)"`. With `tracesEffects`, the
  /// stores write `effect` lines (all at time 0).
  @StoreActor
  static func primes(
    recordingBuildsIn built: LockedBox<[String]>, dependencies: PrimesDependencies = .instant,
    maxInstances: Int = Session.defaultMaxInstances,
    maxActiveInstances: Int = Session.defaultMaxActiveInstances, tracesEffects: Bool = false
  ) -> Session {
    let output = OutputLines()
    let sequence = ActionSequence()
    let factories = ["primes", "other"].map { name in
      let descriptor = StoreDescriptor(
        name: name, summary: "", actions: PrimesStore.actions, stateSchema: [:])
      let storeOutput = StoreOutput(
        lines: output, sequence: sequence, mode: .actions,
        effectTraceTime: tracesEffects ? { 0 } : nil
      )
      @StoreActor func store(_ parkedState: Any?) -> Store<PrimesState, PrimesAction> {
        Store(
          initialState: parkedState as? PrimesState ?? PrimesState(),
          reducer: PrimesReducer(dependencies: dependencies))
      }
      func label(_ instance: InstanceKey?) -> String {
        instance.map { "\(name)/\($0)" } ?? name
      }
      return StoreFactory(
        name: name, describe: { descriptor },
        make: { instance, parkedState in
          built.append(label(instance))
          return StoreHost(
            store: store(parkedState), descriptor: descriptor,
            output: storeOutput.about(instance))
        },
        reuse: { host, instance, parkedState in
          guard let host = host as? StoreHost<PrimesState, PrimesAction> else { return false }
          built.append(label(instance) + " (reused)")
          host.reuse(
            from: parkedState as? PrimesState ?? PrimesState(),
            reducer: PrimesReducer(dependencies: dependencies), output: storeOutput.about(instance))
          return true
        })
    }
    return Session(
      stores: factories, output: output, sequence: sequence, maxInstances: maxInstances,
      maxActiveInstances: maxActiveInstances)
  }
}

extension PrimesDependencies {
  /// The first prime known, favourites that load empty, and time that stands still.
  static let instant = PrimesDependencies(
    nthPrime: NthPrimeClient(largestN: 1_000) { n in n == 1 ? 2 : nil },
    favoritePrimes: FavoritePrimesStorage(load: { [] }, save: { _ in }),
    now: { 0 })
}

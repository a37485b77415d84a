/// Marks an action enum whose cases travel as a dotted case path.
///
/// Every action enum of a feature conforms, so that a child action embedded in a parent case
/// (`case counter(CounterAction)`) reads on the wire as one dotted type, mirroring TCA's
/// `\.counter.incrTapped`:
///
/// ```json
/// {"type": "counter.nthPrimeResponse", "value": 17}
/// ```
///
/// The conformance adds no requirements beyond `Codable`: the synthesized conformance is the
/// feature's whole interface, and the protocol layer translates it to and from the wire shape.
public protocol ComposableAction: Codable, Sendable {}

// swift-tools-version: 6.0
import PackageDescription

/// Our own code builds with warnings as errors; dependencies do not.
let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
  name: "ComposableActor",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "composable-actor", targets: ["composable-actor"])
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
  ],
  targets: [
    // C system libraries, found through pkg-config.
    .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
    .systemLibrary(
      name: "CPrimesieve", pkgConfig: "primesieve", providers: [.apt(["libprimesieve-dev"])]),

    // The architecture: pure Swift, no I/O.
    .target(name: "ComposableCore", swiftSettings: strict),
    .target(name: "ComposableTestSupport", dependencies: ["ComposableCore"], swiftSettings: strict),

    // JSON values, parsing, printing, RFC 6902 diffs, Codable bridges.
    .target(name: "JSON", swiftSettings: strict),

    // The libuv loop, its executor, clock, stdio streams, signals and thread pool.
    .target(name: "EventLoop", dependencies: ["CLibUV"], swiftSettings: strict),

    // Features: state, actions, reducers and the interfaces of their dependencies.
    .target(
      name: "PrimesFeature", dependencies: ["ComposableCore"], path: "Sources/Features/Primes",
      swiftSettings: strict),

    // Live implementations of the features' dependencies.
    .target(
      name: "LiveDependencies",
      dependencies: ["EventLoop", "CPrimesieve", "JSON", "PrimesFeature"],
      swiftSettings: strict),

    // The wire protocol: messages, action and state codecs, the store registry.
    .target(name: "Protocol", dependencies: ["ComposableCore", "JSON"], swiftSettings: strict),

    .executableTarget(
      name: "composable-actor",
      dependencies: [
        "ComposableCore", "EventLoop", "JSON", "Protocol", "PrimesFeature", "LiveDependencies",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),

    .testTarget(
      name: "ComposableCoreTests", dependencies: ["ComposableCore", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
    .testTarget(name: "EventLoopTests", dependencies: ["EventLoop"], swiftSettings: strict),
    .testTarget(
      name: "PrimesFeatureTests", dependencies: ["PrimesFeature", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "ProtocolTests", dependencies: ["Protocol", "JSON", "ComposableCore", "PrimesFeature"],
      swiftSettings: strict),
  ]
)

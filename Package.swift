// swift-tools-version: 6.0
import PackageDescription

/// Our own code builds with warnings as errors; dependencies do not.
///
/// Release builds: cross-module optimization lets the generic core (Store, Scope, Effect) be
/// specialized for each feature's types; dynamic exclusivity checks are off because all state
/// lives on the one loop thread (debug builds, which the unit tests use, keep them, and static
/// checks always apply). Both measured with bench/ and callgrind.
let strict: [SwiftSetting] = [
  .unsafeFlags(["-warnings-as-errors"]),
  .unsafeFlags(
    ["-cross-module-optimization", "-enforce-exclusivity=unchecked"],
    .when(configuration: .release)),
]

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
    // libuv, the one C library linked, found through pkg-config.
    .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
    // Headers only (libcurl4-openssl-dev, libwebsockets-dev): these libraries are not linked but
    // loaded with dlopen on first use, by the shims below, so that runs that make no request
    // and open no WebSocket do not spend milliseconds of start-up loading them.
    .systemLibrary(name: "CCurl"),
    .systemLibrary(name: "CWebSockets"),
    // What the shims below share: dlopen by soname, once, with a failure message naming the
    // library.
    .target(name: "CLazyLibrary"),
    // libcurl's loader, its functions, and typed wrappers of its variadic setopt/getinfo, which
    // Swift cannot call.
    .target(name: "CCurlShim", dependencies: ["CCurl", "CLazyLibrary"]),
    // The loader and functions of libwebsockets and OpenSSL.
    .target(name: "CWebSocketsShim", dependencies: ["CWebSockets", "CLazyLibrary"]),
    // The loader and functions of libprimesieve (libprimesieve-dev, for its header), loaded on
    // the first nth prime computed: Swift needs none of its declarations, so it has no module of
    // its own.
    .target(name: "CPrimesieveShim", dependencies: ["CLazyLibrary"]),

    // A pthread mutex, shared by every layer that guards state touched from several threads.
    .target(name: "Locks", swiftSettings: strict),

    // The architecture: pure Swift, no I/O.
    .target(name: "ComposableCore", dependencies: ["Locks"], swiftSettings: strict),
    .target(
      name: "ComposableTestSupport", dependencies: ["ComposableCore", "Locks"],
      swiftSettings: strict),

    // JSON values, parsing, printing, RFC 6902 diffs, Codable bridges.
    .target(name: "JSON", swiftSettings: strict),

    // The libuv loop, its executor, clock, stdio streams, signals and thread pool.
    .target(name: "EventLoop", dependencies: ["CLibUV", "Locks"], swiftSettings: strict),

    // HTTP and WebSocket clients on the loop.
    .target(
      name: "Networking",
      dependencies: [
        "EventLoop", "CLibUV", "CCurl", "CCurlShim", "CWebSockets", "CWebSocketsShim", "Locks",
      ],
      swiftSettings: strict),

    // Features: state, actions, reducers and the interfaces of their dependencies.
    .target(
      name: "PrimesFeature", dependencies: ["ComposableCore"], path: "Sources/Features/Primes",
      swiftSettings: strict),
    .target(
      name: "RandomTodoFeature", dependencies: ["ComposableCore", "SharedModels"],
      path: "Sources/Features/RandomTodo", swiftSettings: strict),
    .target(
      name: "VotesFeature", dependencies: ["ComposableCore", "SharedModels"],
      path: "Sources/Features/Votes", swiftSettings: strict),
    .target(
      name: "WebSocketFeature", dependencies: ["ComposableCore"],
      path: "Sources/Features/WebSocket", swiftSettings: strict),
    // Value types several features' dependency interfaces share.
    .target(name: "SharedModels", path: "Sources/Features/SharedModels", swiftSettings: strict),

    // Live implementations of the features' dependencies.
    .target(
      name: "LiveDependencies",
      dependencies: [
        "EventLoop", "Networking", "CPrimesieveShim", "JSON", "Locks", "SharedModels",
        "PrimesFeature",
        "RandomTodoFeature", "VotesFeature", "WebSocketFeature",
      ],
      swiftSettings: strict),

    // The wire protocol: messages, action and state codecs, the store registry.
    .target(name: "Protocol", dependencies: ["ComposableCore", "JSON"], swiftSettings: strict),

    .executableTarget(
      name: "composable-actor",
      dependencies: [
        "ComposableCore", "EventLoop", "JSON", "Protocol", "LiveDependencies", "Networking",
        "SharedModels",
        "PrimesFeature", "RandomTodoFeature", "VotesFeature",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),

    // The HTTP client alone, timed against the fixture server by bench/run.py.
    .executableTarget(
      name: "http-bench", dependencies: ["Networking", "EventLoop"], path: "bench/http-bench",
      swiftSettings: strict),

    // The WebSocket client alone, timed against the echo server by bench/run.py.
    .executableTarget(
      name: "ws-bench", dependencies: ["Networking", "EventLoop"], path: "bench/ws-bench",
      swiftSettings: strict),

    // libFuzzer target for the input path; built by scripts/fuzz.sh.
    .executableTarget(
      name: "fuzz-protocol", dependencies: ["ComposableCore", "JSON", "Protocol", "PrimesFeature"],
      swiftSettings: strict),

    .testTarget(
      name: "ComposableCoreTests", dependencies: ["ComposableCore", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "JSONTests", dependencies: ["JSON", "ComposableTestSupport"], swiftSettings: strict),
    .testTarget(name: "EventLoopTests", dependencies: ["EventLoop"], swiftSettings: strict),
    .testTarget(
      name: "NetworkingTests", dependencies: ["Networking", "EventLoop", "CLibUV"],
      swiftSettings: strict),
    .testTarget(
      name: "PrimesFeatureTests",
      dependencies: ["PrimesFeature", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "RandomTodoFeatureTests",
      dependencies: ["RandomTodoFeature", "SharedModels", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "VotesFeatureTests",
      dependencies: ["VotesFeature", "SharedModels", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "WebSocketFeatureTests", dependencies: ["WebSocketFeature", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "LiveDependenciesTests",
      dependencies: ["LiveDependencies", "EventLoop", "PrimesFeature"],
      swiftSettings: strict),
    .testTarget(
      name: "ProtocolTests",
      dependencies: [
        "Protocol", "JSON", "ComposableCore", "ComposableTestSupport", "PrimesFeature",
      ],
      swiftSettings: strict),
  ]
)

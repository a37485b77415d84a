// swift-tools-version: 6.0
import CompilerPluginSupport
import PackageDescription

/// Our own code builds with warnings as errors; dependencies do not.
///
/// Release builds: cross-module optimization lets the generic core (Store, Scope, Effect) be
/// specialized for each feature's types; dynamic exclusivity checks are off because all state
/// lives on the one loop thread (debug builds, which the unit tests use, keep them, and static
/// checks always apply). Both measured with bench/ and callgrind. The macro plugin's targets,
/// which run on the build machine, take these alone; the rest take `strict`.
let strictForBuildMachine: [SwiftSetting] = [
  .unsafeFlags(["-warnings-as-errors"]),
  .unsafeFlags(
    ["-cross-module-optimization", "-enforce-exclusivity=unchecked"],
    .when(configuration: .release)),
]

/// scripts/fuzz.sh builds with COMPOSABLE_ACTOR_FUZZ=1: our modules get libFuzzer's coverage and
/// AddressSanitizer, and the fuzz target libFuzzer's driver. Only our modules that reach a
/// binary: given with -Xswiftc, the flags also reached the macro plugin (whose `main` then
/// clashed with libFuzzer's in a debug build) and swift-syntax under it.
let fuzzing = Context.environment["COMPOSABLE_ACTOR_FUZZ"] != nil
let sanitizedForFuzzing: [SwiftSetting] =
  fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []

let strict = strictForBuildMachine + sanitizedForFuzzing

let package = Package(
  name: "ComposableActor",
  platforms: [.macOS(.v15)],
  products: [
    // What a team's own package depends on: `import ComposableActor` brings the core and the
    // runtime too.
    .library(name: "ComposableActor", targets: ["ComposableActor"]),
    .library(name: "ComposableCore", targets: ["ComposableCore"]),
    // What a feature (state, actions, reducer, the interfaces of its dependencies) is written
    // against, without the loop, libuv or libcurl: a feature's own target can depend on it alone.
    .library(name: "ComposableDependencies", targets: ["ComposableDependencies"]),
    .library(name: "ComposableRuntime", targets: ["ComposableRuntime"]),
    // `TestStore`, for reducer tests in TCA's exhaustive style.
    .library(name: "ComposableTestSupport", targets: ["ComposableTestSupport"]),
    .executable(name: "composable-actor", targets: ["composable-actor"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    // Deque, the ring buffer under IdentifiedArray: constant time at both ends.
    .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    // TestStore's failures: the −/+ difference of two values, as TCA's. Test support only: the
    // core and the runtime must not pay for it at start-up.
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.3.0"),
    // `swift package generate-documentation` (make docs): the API reference and its articles,
    // from each module's documentation catalog. A plugin only: nothing it brings is linked.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    // Base64 of binary WebSocket messages: a table-driven encoder, ten times faster than the
    // loop it replaced (an order book's frame was encoded for every action line).
    .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
    // `@ComposableAction`, which lists a store's actions from its action type: the parser and
    // the macro API the compiler runs it with, built for the build machine only.
    .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.0"),
  ],
  targets: [
    // libuv, the one C library linked, found through pkg-config.
    .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
    // Headers only (libcurl4-openssl-dev, libwebsockets-dev, libsqlite3-dev): these libraries are
    // not linked but loaded with dlopen on first use, by the shims below, so that runs that make
    // no request, open no WebSocket and keep no state do not spend milliseconds of start-up
    // loading them.
    .systemLibrary(name: "CCurl"),
    .systemLibrary(name: "CWebSockets"),
    .systemLibrary(name: "CSQLite"),
    .systemLibrary(name: "CPostgres"),
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
    // The loader and functions of libsqlite3, loaded when a state folder is opened, and
    // wrappers binding with SQLITE_TRANSIENT, which Swift cannot import.
    .target(name: "CSQLiteShim", dependencies: ["CSQLite", "CLazyLibrary"]),
    // The loader and functions of libpq (libpq-dev, for its header), loaded when a
    // `--state-url postgresql://…` storage opens.
    .target(name: "CPostgresShim", dependencies: ["CPostgres", "CLazyLibrary"]),

    // A pthread mutex, shared by every layer that guards state touched from several threads.
    .target(name: "Locks", swiftSettings: strict),

    // Collections for state that tell what changed since an earlier version of them
    // (IdentifiedArray), so that a host patches them in time proportional to the change.
    .target(
      name: "StateCollections",
      dependencies: ["Locks", .product(name: "DequeModule", package: "swift-collections")],
      swiftSettings: strict),

    // The macros a feature's types are declared with, as the compiler plugin that runs them;
    // they never reach a binary.
    .macro(
      name: "ComposableMacros",
      dependencies: [
        "ComposableMacroExpansions",
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
      ],
      swiftSettings: strictForBuildMachine),
    // What those macros write, apart from the plugin: the tests depend on this and not on the
    // macro, since a test bundle holding a macro target is built as a build-machine tool, with
    // every module it links built a second time.
    .target(
      name: "ComposableMacroExpansions",
      dependencies: [
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
      ],
      swiftSettings: strictForBuildMachine),

    // The architecture: pure Swift, no I/O.
    .target(
      name: "ComposableCore", dependencies: ["ComposableMacros", "Locks", "StateCollections"],
      swiftSettings: strict),
    .target(
      name: "ComposableTestSupport",
      dependencies: [
        "ComposableCore", "Locks", .product(name: "CustomDump", package: "swift-custom-dump"),
      ],
      swiftSettings: strict),

    // JSON values, parsing, printing, RFC 6902 diffs, Codable bridges.
    .target(name: "JSON", dependencies: ["StateCollections"], swiftSettings: strict),

    // The libuv loop, its executor, clock, stdio streams, signals and thread pool.
    .target(name: "EventLoop", dependencies: ["CLibUV", "Locks"], swiftSettings: strict),

    // HTTP and WebSocket clients on the loop.
    .target(
      name: "Networking",
      dependencies: [
        "EventLoop", "CLibUV", "CCurl", "CCurlShim", "CWebSockets", "CWebSocketsShim", "Locks",
      ],
      swiftSettings: strict),

    // The wire protocol: messages, action and state codecs, the session and its stores.
    .target(
      name: "Protocol",
      dependencies: [
        "ComposableCore", "JSON", .product(name: "DequeModule", package: "swift-collections"),
      ], swiftSettings: strict),

    // Where durable instances are kept, behind Protocol's InstanceStorage: SQLite in a folder
    // (the default), or PostgreSQL shared by several processes.
    .target(
      name: "Storage",
      dependencies: [
        "Protocol", "CSQLite", "CSQLiteShim", "CPostgres", "CPostgresShim", "Locks",
      ],
      swiftSettings: strict),

    // The interfaces a feature's dependencies are written against (failed requests, WebSocket
    // messages and events, the WebSocket service): no I/O of their own, so a feature that
    // names them builds and tests without the loop. Their live forms are the runtime's.
    .target(
      name: "ComposableDependencies",
      dependencies: [
        "ComposableCore", "JSON", "Protocol",
        .product(name: "ExtrasBase64", package: "swift-extras-base64"),
      ],
      swiftSettings: strict),

    // The runtime: what hosts any store. The definition a store is declared with, the services
    // its dependencies are built from (HTTP, WebSocket, thread pool, clock, randomness, files),
    // and the process that runs a list of stores on the loop.
    .target(
      name: "ComposableRuntime",
      dependencies: [
        "ComposableCore", "ComposableDependencies", "EventLoop", "JSON", "Locks", "Networking",
        "Protocol", "Storage", .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),

    // The harness: scenario files run against scripted services, recordings and their replay.
    .target(
      name: "ComposableHarness",
      dependencies: [
        "ComposableCore", "ComposableRuntime", "EventLoop", "JSON", "Networking", "Protocol",
      ],
      // The timeline page's parts, compiled in as bytes: the binary writes a self-contained
      // page wherever it runs, with no resource bundle to find beside it.
      resources: [
        .embedInCode("Timeline/Page/timeline.html"), .embedInCode("Timeline/Page/timeline.css"),
        .embedInCode("Timeline/Page/timeline.js"),
      ],
      swiftSettings: strict),

    // The command a team's own binary runs: `run`, `test`, `replay`, `export`, `describe` and
    // `schemas` over the stores it is given. Importing it is all a store's file and a `main` need.
    .target(
      name: "ComposableActor",
      dependencies: [
        "ComposableCore", "ComposableRuntime", "ComposableHarness", "EventLoop", "JSON",
        "Protocol", "Storage",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),

    // The four seed stores, each two targets. The feature (state, actions, reducer, the
    // interfaces of its dependencies) depends on ComposableDependencies alone, so it and its
    // tests build without the loop, libuv or libcurl; the definition (the `StoreDefinition` and
    // the live dependencies) depends on the feature and the runtime. They use only the public
    // API a user has.
    .target(
      name: "PrimesFeature", dependencies: ["ComposableDependencies"],
      path: "Sources/Stores/Primes", swiftSettings: strict),
    .target(
      name: "PrimesDefinition",
      dependencies: ["PrimesFeature", "ComposableRuntime", "CPrimesieveShim"],
      path: "Sources/Stores/PrimesDefinition", swiftSettings: strict),
    .target(
      name: "RandomTodoFeature", dependencies: ["ComposableDependencies"],
      path: "Sources/Stores/RandomTodo", swiftSettings: strict),
    .target(
      name: "RandomTodoDefinition", dependencies: ["RandomTodoFeature", "ComposableRuntime"],
      path: "Sources/Stores/RandomTodoDefinition", swiftSettings: strict),
    .target(
      name: "VotesFeature", dependencies: ["ComposableDependencies"], path: "Sources/Stores/Votes",
      swiftSettings: strict),
    .target(
      name: "VotesDefinition", dependencies: ["VotesFeature", "ComposableRuntime"],
      path: "Sources/Stores/VotesDefinition", swiftSettings: strict),
    .target(
      name: "WebSocketFeature", dependencies: ["ComposableDependencies"],
      path: "Sources/Stores/WebSocket", swiftSettings: strict),
    .target(
      name: "WebSocketDefinition", dependencies: ["WebSocketFeature", "ComposableRuntime"],
      path: "Sources/Stores/WebSocketDefinition", swiftSettings: strict),

    // The shipped binary: the command over the four seed stores.
    .executableTarget(
      name: "composable-actor",
      dependencies: [
        "ComposableActor", "PrimesDefinition", "RandomTodoDefinition", "VotesDefinition",
        "WebSocketDefinition",
      ],
      swiftSettings: strict),

    // The HTTP client alone, timed against the fixture server by bench/run.py.
    .executableTarget(
      name: "http-bench", dependencies: ["Networking", "EventLoop"], path: "bench/http-bench",
      swiftSettings: strict),

    // Stores with planted bugs that end the process, for the end-to-end tests of `simulate`
    // (Tests/e2e/test_simulate_crash.py): only those tests run it.
    .executableTarget(
      name: "planted-stores", dependencies: ["ComposableActor"], path: "Tests/planted-stores",
      swiftSettings: strict),

    // The WebSocket client alone, timed against the echo server by bench/run.py.
    .executableTarget(
      name: "ws-bench", dependencies: ["Networking", "EventLoop"], path: "bench/ws-bench",
      swiftSettings: strict),

    // libFuzzer targets for the input path and the files a user hands over; built by
    // scripts/fuzz.sh, with the settings `fuzzing` adds.
    .executableTarget(
      name: "fuzz",
      dependencies: [
        "ComposableCore", "ComposableRuntime", "ComposableHarness", "JSON", "Protocol",
        "PrimesFeature", "PrimesDefinition", "RandomTodoFeature", "RandomTodoDefinition",
        "VotesFeature", "VotesDefinition", "WebSocketFeature", "WebSocketDefinition",
      ],
      swiftSettings: strict + (fuzzing ? [.unsafeFlags(["-parse-as-library", "-DFUZZING"])] : []),
      // lld: gold hits an internal error linking the sanitizer runtimes here. Unused sections
      // dropped, as in release: libFuzzer's own `main`, which our entry point replaces, refers to
      // a callback we do not define.
      linkerSettings: fuzzing
        ? [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld", "-Xlinker", "--gc-sections"])]
        : []),

    .testTarget(
      name: "ComposableCoreTests", dependencies: ["ComposableCore", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "ComposableMacrosTests",
      dependencies: [
        "ComposableMacroExpansions",
        .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "StateCollectionsTests", dependencies: ["StateCollections"], swiftSettings: strict),
    .testTarget(
      name: "JSONTests", dependencies: ["JSON", "ComposableTestSupport", "StateCollections"],
      swiftSettings: strict),
    // run's arguments read without the argument parser, against the parser.
    .testTarget(
      name: "ComposableActorTests",
      dependencies: [
        "ComposableActor", "ComposableTestSupport", "PrimesDefinition", "Protocol",
        "WebSocketDefinition", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: strict),
    .testTarget(name: "EventLoopTests", dependencies: ["EventLoop"], swiftSettings: strict),
    .testTarget(
      name: "NetworkingTests", dependencies: ["Networking", "EventLoop", "CLibUV", "CWebSockets"],
      swiftSettings: strict),
    // A feature's tests link the feature and TestStore, not the runtime.
    .testTarget(
      name: "PrimesFeatureTests",
      dependencies: [
        "PrimesFeature", "ComposableDependencies", "ComposableTestSupport", "StateCollections",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "PrimesDefinitionTests",
      dependencies: ["PrimesDefinition", "PrimesFeature", "ComposableRuntime"],
      swiftSettings: strict),
    .testTarget(
      name: "RandomTodoFeatureTests",
      dependencies: ["RandomTodoFeature", "ComposableDependencies", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "RandomTodoDefinitionTests",
      dependencies: ["RandomTodoDefinition", "ComposableRuntime"], swiftSettings: strict),
    .testTarget(
      name: "VotesFeatureTests",
      dependencies: ["VotesFeature", "ComposableDependencies", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "VotesDefinitionTests", dependencies: ["VotesDefinition", "ComposableRuntime"],
      swiftSettings: strict),
    .testTarget(
      name: "WebSocketFeatureTests",
      dependencies: ["WebSocketFeature", "ComposableDependencies", "ComposableTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "WebSocketDefinitionTests",
      dependencies: ["WebSocketDefinition", "ComposableRuntime"], swiftSettings: strict),
    .testTarget(
      name: "ComposableDependenciesTests", dependencies: ["ComposableDependencies"],
      swiftSettings: strict),
    .testTarget(
      name: "ComposableRuntimeTests",
      dependencies: [
        "ComposableRuntime", "ComposableTestSupport", "EventLoop", "JSON", "Networking", "Protocol",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "ComposableHarnessTests",
      dependencies: [
        "ComposableHarness", "ComposableRuntime", "ComposableCore", "EventLoop", "JSON",
        "PrimesFeature", "PrimesDefinition",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "ProtocolTests",
      dependencies: [
        "Protocol", "JSON", "ComposableCore", "ComposableTestSupport", "PrimesFeature",
        "PrimesDefinition", "RandomTodoFeature", "VotesFeature", "WebSocketFeature",
        "StateCollections", "Storage",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "StorageTests", dependencies: ["Storage", "Protocol", "CSQLite", "CSQLiteShim"],
      swiftSettings: strict),
  ]
)

// swift-tools-version: 6.0
import PackageDescription

// The framework's own warnings are its business; ours fail the build.
let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
  name: "TodoActor",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "ComposableActor", path: "../..")
  ],
  targets: [
    // The feature: state, actions, reducer, the interfaces of its dependencies. It depends on
    // ComposableDependencies alone, so it and its tests build without the loop, libuv or curl.
    .target(
      name: "TodoListFeature",
      dependencies: [.product(name: "ComposableDependencies", package: "ComposableActor")],
      swiftSettings: strict),
    // The store's definition and its live dependencies (the file, the sync request).
    .target(
      name: "TodoListStore",
      dependencies: [
        "TodoListFeature", .product(name: "ComposableRuntime", package: "ComposableActor"),
      ],
      swiftSettings: strict),
    // The binary: the framework's command over this one store.
    .executableTarget(
      name: "todo-actor",
      dependencies: [
        "TodoListStore", .product(name: "ComposableActor", package: "ComposableActor"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "TodoListFeatureTests",
      dependencies: [
        "TodoListFeature",
        .product(name: "ComposableDependencies", package: "ComposableActor"),
        .product(name: "ComposableTestSupport", package: "ComposableActor"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "TodoListStoreTests",
      dependencies: [
        "TodoListStore", .product(name: "ComposableRuntime", package: "ComposableActor"),
      ],
      swiftSettings: strict),
  ],
  swiftLanguageModes: [.v6]
)

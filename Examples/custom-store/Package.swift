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
    // The store: its feature (state, actions, reducer, dependencies) and its definition.
    .target(
      name: "TodoListStore",
      dependencies: [.product(name: "ComposableActor", package: "ComposableActor")],
      swiftSettings: strict),
    // The binary: the framework's command over this one store.
    .executableTarget(
      name: "todo-actor",
      dependencies: [
        "TodoListStore", .product(name: "ComposableActor", package: "ComposableActor"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "TodoListStoreTests",
      dependencies: [
        "TodoListStore",
        .product(name: "ComposableTestSupport", package: "ComposableActor"),
      ],
      swiftSettings: strict),
  ],
  swiftLanguageModes: [.v6]
)

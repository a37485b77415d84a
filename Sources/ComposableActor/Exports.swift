// A store's file and a binary's `main` need only `import ComposableActor`.
@_exported import ComposableCore
@_exported import ComposableRuntime

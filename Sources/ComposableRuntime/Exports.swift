// What a store's definition uses, from one import: the architecture (Reducer, Effect, Store),
// JSON values and schemas, the wire descriptions, the thread pool, and the logger.
@_exported import ComposableCore
@_exported import EventLoop
@_exported import JSON
@_exported import Locks
@_exported import Logging
@_exported import Protocol

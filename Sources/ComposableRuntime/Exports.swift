// What a store's definition uses, from one import: the architecture (Reducer, Effect, Store),
// JSON values and schemas, the wire descriptions, the thread pool, and the logger.
@_exported import ComposableCore
@_exported import EventLoop
@_exported import JSON
@_exported import Locks
@_exported import Logging
@_exported import Protocol

// The values of an HTTP request a store may build for `HTTPService.response(to:)`; the client
// itself stays out of features' reach.
@_exported import struct Networking.HTTPMethod
@_exported import struct Networking.HTTPRequest
@_exported import struct Networking.HTTPResponse

// What a store's files are written against, from one import: the architecture (Reducer, Effect,
// Store, the state collections), JSON values, the action descriptions and schemas, the thread
// pool's interface, and the logger. The process's own parts (the session, the loop, the output
// writers, storage, recordings) have `package` access: no store file sees them.
@_exported import ComposableCore
@_exported import ComposableDependencies
@_exported import EventLoop
@_exported import JSON
@_exported import Logging
@_exported import Protocol

// The values of an HTTP request a store may build for `HTTPService.response(to:)`; the client
// itself stays out of features' reach.
@_exported import struct Networking.HTTPMethod
@_exported import struct Networking.HTTPRequest
@_exported import struct Networking.HTTPResponse

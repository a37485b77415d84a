// What a feature's state, actions, reducer and dependency interfaces are written against, from
// one import and without the loop, the HTTP client or storage: the architecture, JSON values,
// and the action descriptions and schemas.
@_exported import ComposableCore
@_exported import JSON
@_exported import Protocol

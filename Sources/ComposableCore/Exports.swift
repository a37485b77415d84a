// A state's collections are part of the architecture: whoever imports the core uses them.
@_exported import StateCollections

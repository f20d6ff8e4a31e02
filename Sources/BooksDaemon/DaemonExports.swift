// The daemon is the I/O shell of the pure machines in BooksMachines: its API (the engine's
// status, the registry's stores, the log's levels) is made of their values, so `import BooksDaemon`
// names them too (booksd and the tests import one module).
@_exported import BooksMachines

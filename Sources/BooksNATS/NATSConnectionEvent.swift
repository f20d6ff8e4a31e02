/// A change of a connection's state, reported on one of the library's threads.
public enum NATSConnectionEvent: Sendable, Equatable {
    /// Connected (for the first time, after a background retry of the initial connect).
    case connected
    /// The connection to the server was lost; the library reconnects on its own.
    case disconnected
    /// Connected again after a loss (possibly to another server of the cluster).
    case reconnected
    /// Closed for good; no further event follows.
    case closed
}

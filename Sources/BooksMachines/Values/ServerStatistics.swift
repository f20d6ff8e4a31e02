/// Counters of a `SocketServer`, read as one consistent snapshot.
public struct ServerStatistics: Sendable, Hashable {
    /// Open client connections (including those that have not said hello yet).
    public var clients: Int = 0
    /// Connections with an active subscription.
    public var subscribers: Int = 0
    /// Connections accepted since start (including those rejected for `maxClients`).
    public var accepted: Int = 0
    /// Connections refused with `limit-exceeded` at accept: `maxClients` were open, or
    /// `maxClientsPerUID` from the peer's uid.
    public var rejected: Int = 0
    /// Subscribers disconnected because their output queue overflowed.
    public var lagged: Int = 0
    /// Connections closed after a protocol violation or a hello timeout.
    public var violations: Int = 0
    /// Connections refused with `limit-exceeded` because their uid had `maxClientsPerUID` open
    /// (also counted in `rejected`).
    public var rejectedPerUID: Int = 0
    /// Unsubscribed connections closed by the idle timeout.
    public var idleClosed: Int = 0
    /// Connections closed because the budget for unfinished request lines was exhausted and they
    /// held the largest one (also counted in `violations`).
    public var lineBudgetClosed: Int = 0
    /// Times a broadcast change set was filtered and encoded for a subscription filter: once per
    /// distinct filter among the subscribers it was offered to, not once per subscriber.
    public var filterEvaluations: Int = 0
    /// Connections a broadcast, heartbeat or conflict event was offered to, summed over all of
    /// them: only the connections that follow the event's store are visited, so a change of one
    /// store costs nothing per subscriber of another.
    public var broadcastVisits: Int = 0

    /// Creates zeroed statistics.
    public init() {}
}

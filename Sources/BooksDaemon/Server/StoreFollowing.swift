import BooksProtocol

/// What one socket connection follows of the named stores, beyond what its machine's
/// subscriptions hold: kept by the server thread on the connection, beside its
/// `ConnectionStateMachine`, and lent to the delegate with each request (`inout`), so a router
/// keeps no table of its own and takes no lock for it.
///
/// Guarantees: read and written only on the server thread (the loop applies the engines'
/// answers and the store notices as commands, in the order they were posted), so the stores a
/// connection follows and the parts still in an engine's hands are one consistent view: a store
/// is in `pendingParts` from the multi-store `subscribe` that asked for it until its part is
/// answered (`subscribed` or `subscribe-failed`), and in `subscribed` from the moment the server
/// starts its subscription until it stops.
public struct StoreFollowing: Sendable {
    /// The `subscribe` of `"stores":["*"]` and its client, kept to follow stores added later.
    public struct EveryStore: Sendable {
        /// The request (its filter and options; each added store's part copies it).
        public var request: Request
        /// Who asked.
        public var peer: PeerCredentials
    }

    /// The stores whose part of a multi-store subscribe is not answered yet.
    public var pendingParts: Set<String> = []
    /// The stores it follows.
    public var subscribed: Set<String> = []
    /// Set while it follows every store (a store added later is followed too).
    public var everyStore: EveryStore?

    /// Follows nothing.
    public init() {}

    /// The stores it follows or will follow once their parts are answered.
    public var followedOrPending: Set<String> { subscribed.union(pendingParts) }
}

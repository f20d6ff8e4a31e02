import BooksPlatform
import BooksProtocol

/// What the socket clients of named stores follow, per connection, and the stores' channels:
/// shared by the `StoreRouter` and every store's `StoreChannel`, and made before both, so the
/// registry's channel factory needs no router and the router is made once, over the registry.
///
/// Only subscription bookkeeping lives here (for `unsubscribe` and the store-added /
/// store-removed notices); what an answer needs travels with its request (`ReplyTarget`).
/// Leaf locks only.
public final class StoreFollowers: Sendable {
    let routes = Locked<[ConnectionID: Route]>([:])
    /// The channels made, by store (for the last position of a removed store).
    let channels = Locked<[String: StoreChannel]>([:])

    /// What is known of one connection's subscriptions.
    struct Route: Sendable {
        /// Its protocol version (only version 2 gets the store notices).
        var version = 1
        /// The stores whose part of a multi-store subscribe is not answered yet.
        var fanOut: Set<String> = []
        /// The stores it follows.
        var subscribed: Set<String> = []
        /// The subscribe of `"stores":["*"]`, kept to follow stores added later.
        var everyStore: (request: Request, peer: PeerCredentials)?
    }

    /// No connection follows anything yet.
    public init() {}

    /// The channel of store `name` on `server`; `position` is its engine's position (what a
    /// `subscribe-failed` event states).
    public func channel(
        for name: String, server: SocketServer, position: @escaping @Sendable () -> (epoch: String, seq: UInt64)
    ) -> StoreChannel {
        let channel = StoreChannel(store: name, server: server, followers: self, position: position)
        channels.withLock { $0[name] = channel }
        return channel
    }

    /// Notes that `connection`'s part of a multi-store subscribe for `store` was answered.
    func notePartAnswered(_ connection: ConnectionID, store: String) {
        routes.withLock { _ = $0[connection]?.fanOut.remove(store) }
    }

    /// Notes that `connection` follows `store`.
    func noteSubscribed(_ connection: ConnectionID, store: String) {
        routes.withLock { _ = $0[connection]?.subscribed.insert(store) }
    }

    /// Notes that `connection` no longer follows `store`.
    func noteUnsubscribed(_ connection: ConnectionID, store: String) {
        routes.withLock { _ = $0[connection]?.subscribed.remove(store) }
    }
}

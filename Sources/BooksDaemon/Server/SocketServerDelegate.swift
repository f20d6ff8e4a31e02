import BooksProtocol

/// The daemon side of a `SocketServer`. Every method is called on the server thread and must not
/// block: hand work to your own queue or actor and answer later through the server.
public protocol SocketServerDelegate: AnyObject, Sendable {
    /// A decoded request from a connection that completed `hello` (hello itself is answered by the
    /// server). Answer each request exactly once with `server.send(_:to:)` (or, for `subscribe` /
    /// `unsubscribe`, with `startSubscription` / `stopSubscription`).
    func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID,
        peer: PeerCredentials)
    /// The current lineage and sequence number, for the hello reply. Must be cheap (e.g. read a
    /// Mutex-protected snapshot).
    func serverHelloInfo(_ server: SocketServer) -> (epoch: String, seq: UInt64)
    /// A connection that completed `hello` is gone; later sends to it are ignored.
    func server(_ server: SocketServer, connectionClosed connection: ConnectionID)
    /// A decoded request, with the protocol version its connection negotiated in `hello`. What
    /// the server calls; the default forwards to `server(_:didReceive:from:peer:)`, so a
    /// single-store delegate need not care about versions.
    func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID,
        peer: PeerCredentials, version: Int)
    /// A decoded request, with its connection's version and what the connection follows of the
    /// named stores (kept by the server thread on the connection; the delegate may change it, on
    /// this thread, while it handles the request). What the server calls; the default forwards to
    /// `server(_:didReceive:from:peer:version:)`.
    func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID,
        peer: PeerCredentials, version: Int, following: inout StoreFollowing)
    /// A connection that completed `hello` is gone, with what it followed. What the server calls;
    /// the default forwards to `server(_:connectionClosed:)`.
    func server(_ server: SocketServer, connectionClosed connection: ConnectionID, following: StoreFollowing)
    /// The position of `store` (a name from `StoreSubscriptions`), for a subscriber's shutdown
    /// notice; nil when unknown (the server then uses `serverHelloInfo`). Must be cheap.
    func serverPosition(_ server: SocketServer, store: String) -> (epoch: String, seq: UInt64)?
}

extension SocketServerDelegate {
    /// Forwards to the version-less method.
    public func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID,
        peer: PeerCredentials, version: Int
    ) {
        self.server(server, didReceive: request, from: connection, peer: peer)
    }

    /// Forwards to the method without `following`.
    public func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID,
        peer: PeerCredentials, version: Int, following: inout StoreFollowing
    ) {
        self.server(server, didReceive: request, from: connection, peer: peer, version: version)
    }

    /// Forwards to the method without `following`.
    public func server(_ server: SocketServer, connectionClosed connection: ConnectionID, following: StoreFollowing) {
        self.server(server, connectionClosed: connection)
    }

    /// Unknown: the server uses `serverHelloInfo`.
    public func serverPosition(_ server: SocketServer, store: String) -> (epoch: String, seq: UInt64)? { nil }
}

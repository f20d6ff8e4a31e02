import BooksCore
import BooksPlatform
import BooksProtocol

/// The socket server's delegate when the daemon serves named stores: each request goes to the
/// engine of its store (`StoreResolution`), `stores` is answered here, and a subscription to
/// several stores (`"stores"`) is split into one per store. Runs on the server thread and never
/// blocks: engines take requests without waiting for a disk, so one store's work never delays
/// another's.
///
/// Stateless: what an answer needs travels with its request (a `ReplyTarget` naming the
/// connection, its negotiated version and, for the per-store part of a multi-store subscribe,
/// that subscribe's id; `StoreChannel` shapes the answer from it alone), and what a connection
/// follows (for `unsubscribe` and the store-added / store-removed notices) is the server thread's
/// `StoreFollowing`, kept on the connection beside its machine and lent with each request. The
/// router holds no table and takes no lock per request.
public final class StoreRouter: SocketServerDelegate {
    /// The stores.
    public let directory: any StoreDirectory
    let server: SocketServer

    /// Creates the router of `server` over `directory`. Pass it to `server.start(delegate:)`.
    public init(server: SocketServer, directory: any StoreDirectory) {
        self.server = server
        self.directory = directory
    }

    /// A channel of store `name`'s engine, its position read from `directory`.
    public func channel(for name: String) -> StoreChannel {
        StoreChannel(store: name, server: server) { [directory] in
            directory.engine(named: name)?.feedPosition ?? ("", 0)
        }
    }

    /// Follows `registry`: its `added` / `removed` become `storeAdded` / `storeRemoved`.
    public func follow(_ registry: StoreRegistry) {
        registry.observe { [weak self] event in
            switch event {
            case .added(let status): self?.storeAdded(status.name)
            case .removed(let name, let reason): self?.storeRemoved(name.rawValue, reason: reason)
            }
        }
    }

    // MARK: SocketServerDelegate

    /// Without a version: a version-1 request.
    public func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID, peer: PeerCredentials
    ) {
        self.server(server, didReceive: request, from: connection, peer: peer, version: 1)
    }

    /// Without what the connection follows: a connection that follows nothing.
    public func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID, peer: PeerCredentials,
        version: Int
    ) {
        var following = StoreFollowing()
        self.server(server, didReceive: request, from: connection, peer: peer, version: version, following: &following)
    }

    /// Routes `request` to its store's engine, or answers it (`stores`, multi-store `subscribe`
    /// and `unsubscribe`, an unknown or missing store).
    /// Notes in `following` (the server thread's record of the connection) what a multi-store
    /// subscribe or unsubscribe changes.
    public func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID, peer: PeerCredentials,
        version: Int, following: inout StoreFollowing
    ) {
        let names = directory.storeNames
        if request.op == .stores {
            server.send(.success(request.id, ReplyResult(stores: describeStores(names))), to: connection)
            return
        }
        if request.op == .ping, request.store == nil, names.count != 1 {
            // Liveness needs no store: the default store's position when there is one.
            let position = directory.engine(named: StoreResolution.defaultStore)?.position
            server.send(.success(request.id, ReplyResult(epoch: position?.epoch, seq: position?.seq)), to: connection)
            return
        }
        if version >= ProtocolVersion.stores, request.store == nil {
            if request.op == .subscribe, let asked = request.stores {
                return subscribe(
                    request, asked, names: names, from: connection, peer: peer, version: version, following: &following)
            }
            if request.op == .unsubscribe, request.stores != nil || names.count != 1 {
                return unsubscribe(
                    request, request.stores ?? [StoreResolution.everyStore], names: names, connection,
                    following: &following)
            }
        }
        switch StoreResolution.store(of: request, version: version, names: names) {
        case .failure(let error):
            server.send(.failure(request.id, error), to: connection)
        case .success(let name):
            guard let engine = directory.engine(named: name) else {
                server.send(.failure(request.id, StoreResolution.unknown(name, directory.storeNames)), to: connection)
                return
            }
            var routed = request
            routed.store = name
            engine.handle(routed, from: ReplyTarget(connection, version: version), peer: peer)
        }
    }

    /// The position of the default (or only) store.
    public func serverHelloInfo(_ server: SocketServer) -> (epoch: String, seq: UInt64) {
        let names = directory.storeNames
        let name = names.count == 1 ? names[0] : StoreResolution.defaultStore
        return directory.engine(named: name)?.feedPosition ?? ("", 0)
    }

    /// The position of `store`.
    public func serverPosition(_ server: SocketServer, store: String) -> (epoch: String, seq: UInt64)? {
        directory.engine(named: store)?.feedPosition
    }

    /// Without what it followed: nothing to tell.
    public func server(_ server: SocketServer, connectionClosed connection: ConnectionID) {}

    /// Tells the engines the connection followed (their subscriber counts).
    public func server(_ server: SocketServer, connectionClosed connection: ConnectionID, following: StoreFollowing) {
        for name in following.subscribed {
            directory.engine(named: name)?.connectionClosed(ReplyTarget(connection))
        }
    }
}

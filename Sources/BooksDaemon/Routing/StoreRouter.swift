import BooksCore
import BooksPlatform
import BooksProtocol

/// The socket server's delegate when the daemon serves named stores: each request goes to the
/// engine of its store (`StoreResolution`), `stores` is answered here, and a subscription to
/// several stores (`"stores"`) is split into one per store. Runs on the server thread and never
/// blocks: engines take requests without waiting for a disk, so one store's work never delays
/// another's.
///
/// Per connection it remembers the negotiated version (for `StoreChannel`'s event tagging), the
/// per-store parts of multi-store subscribes still owed an answer, and whether it follows every
/// store (then a store added later is followed too).
public final class StoreRouter: SocketServerDelegate {
    /// The stores.
    public let directory: any StoreDirectory
    let server: SocketServer
    let routes = Locked<[ConnectionID: ConnectionRoute]>([:])
    /// The channels made, by store (for the last position of a removed store).
    let channels = Locked<[String: StoreChannel]>([:])

    /// What the router knows of one connection.
    struct ConnectionRoute {
        var version = 1
        /// Per store, the id of the multi-store subscribe whose part is not answered yet.
        var fanOut: [String: String] = [:]
        /// The stores it follows.
        var subscribed: Set<String> = []
        /// The subscribe of `"stores":["*"]`, kept to follow stores added later.
        var everyStore: (request: Request, peer: PeerCredentials)?
    }

    /// Creates the router of `server` over `directory`. Pass it to `server.start(delegate:)`
    /// and attach `channel(for:)` to each store's engine.
    public init(server: SocketServer, directory: any StoreDirectory) {
        self.server = server
        self.directory = directory
    }

    /// The channel of store `name`'s engine (the registry's channel factory).
    public func channel(for name: String) -> StoreChannel {
        let channel = StoreChannel(store: name, server: server, router: self)
        channels.withLock { $0[name] = channel }
        return channel
    }

    /// Follows `registry`: its `added` / `removed` become `storeAdded` / `storeRemoved`.
    public func follow(_ registry: StoreRegistry) {
        registry.observe { [weak self] event in
            switch event {
            case .added(let status): self?.storeAdded(status.name)
            case .removed(let name, let reason):
                self?.storeRemoved(name.rawValue, reason: reason)
                _ = self?.channels.withLock { $0.removeValue(forKey: name.rawValue) }
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

    /// Routes `request` to its store's engine, or answers it (`stores`, multi-store `subscribe`
    /// and `unsubscribe`, an unknown or missing store).
    public func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID, peer: PeerCredentials,
        version: Int
    ) {
        routes.withLock { $0[connection, default: ConnectionRoute()].version = version }
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
                return subscribe(request, asked, names: names, from: connection, peer: peer)
            }
            if request.op == .unsubscribe, request.stores != nil || names.count != 1 {
                return unsubscribe(request, request.stores ?? [StoreResolution.everyStore], names: names, connection)
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
            engine.handle(routed, from: connection, peer: peer)
        }
    }

    /// The position of the default (or only) store.
    public func serverHelloInfo(_ server: SocketServer) -> (epoch: String, seq: UInt64) {
        let names = directory.storeNames
        let name = names.count == 1 ? names[0] : StoreResolution.defaultStore
        return directory.engine(named: name)?.position ?? ("", 0)
    }

    /// The position of `store`.
    public func serverPosition(_ server: SocketServer, store: String) -> (epoch: String, seq: UInt64)? {
        directory.engine(named: store)?.position
    }

    /// Forgets the connection and tells the engines it followed (their subscriber counts).
    public func server(_ server: SocketServer, connectionClosed connection: ConnectionID) {
        let route = routes.withLock { $0.removeValue(forKey: connection) }
        for name in route?.subscribed ?? [] {
            directory.engine(named: name)?.connectionClosed(connection)
        }
    }

    // MARK: For StoreChannel

    /// True when `connection` speaks version 2 (its events name their store).
    func namesStores(_ connection: ConnectionID) -> Bool {
        routes.withLock { ($0[connection]?.version ?? 1) >= ProtocolVersion.stores }
    }

    /// True (and forgotten) when `requestID` is the multi-store subscribe owed an answer for
    /// `store` on `connection`.
    func takeFanOut(_ connection: ConnectionID, store: String, requestID: String) -> Bool {
        routes.withLock { routes in
            guard routes[connection]?.fanOut[store] == requestID else { return false }
            routes[connection]?.fanOut[store] = nil
            return true
        }
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

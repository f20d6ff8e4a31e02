import BooksCore
import BooksProtocol

/// Subscriptions to several stores, store-added / store-removed, and the `stores` op.
extension StoreRouter {
    /// `subscribe` with `stores`: one reply (`subscribedStores`), then per store a `subscribed`
    /// event (or `subscribe-failed`) and its snapshot or replayed changes, from that store's engine.
    func subscribe(
        _ request: Request, _ asked: [String], names: [String], from connection: ConnectionID, peer: PeerCredentials,
        version: Int, following: inout StoreFollowing
    ) {
        if let problem = request.filter?.violation() {
            server.send(.failure(request.id, ProtocolError(.limitExceeded, problem)), to: connection)
            return
        }
        let chosen: (names: [String], all: Bool)
        switch StoreResolution.stores(asked, names: names) {
        case .failure(let error):
            server.send(.failure(request.id, error), to: connection)
            return
        case .success(let value):
            chosen = value
        }
        following.everyStore = chosen.all ? StoreFollowing.EveryStore(request: request, peer: peer) : nil
        following.pendingParts.formUnion(chosen.names)
        server.send(.success(request.id, ReplyResult(subscribedStores: chosen.names)), to: connection)
        let target = ReplyTarget(connection, version: version)
        for name in chosen.names { subscribePart(request, store: name, target: target, peer: peer) }
    }

    /// Hands the part of `request` for `store` to its engine (answered through `StoreChannel`).
    func subscribePart(_ request: Request, store: String, target: ReplyTarget, peer: PeerCredentials) {
        guard let engine = directory.engine(named: store) else { return }  // removed meanwhile
        var part = request
        part.store = store
        part.stores = nil
        part.resume = request.resumes?[store]
        part.resumes = nil
        var partTarget = target
        partTarget.subscribePart = request.id
        engine.handle(part, from: partTarget, peer: peer)
    }

    /// `unsubscribe` with `stores` (or, with several stores, without `store`): stops those stores'
    /// feeds on this connection; one reply naming them. Each stop goes through its store's engine
    /// queue, so a part of an earlier multi-store subscribe still queued there starts (and its
    /// events are written) before it stops; the reply follows every stop: nothing of those stores
    /// comes after it.
    func unsubscribe(
        _ request: Request, _ asked: [String], names: [String], _ connection: ConnectionID,
        following: inout StoreFollowing
    ) {
        let followed = following.followedOrPending
        let chosen: [String]
        switch StoreResolution.stores(asked, names: names + followed.filter { !names.contains($0) }) {
        case .failure(let error):
            server.send(.failure(request.id, error), to: connection)
            return
        case .success(let value):
            chosen = value.all ? followed.sorted() : value.names
        }
        if asked.contains(StoreResolution.everyStore) { following.everyStore = nil }
        following.subscribed.subtract(chosen)
        let reply = Reply.success(request.id, ReplyResult(subscribedStores: chosen))
        let engines = chosen.map { ($0, directory.engine(named: $0)) }
        let server = self.server
        let countdown = Countdown(engines.count) { server.send(reply, to: connection) }
        for (name, engine) in engines {
            let stop: @Sendable () -> Void = {
                server.post(.stopSubscription(connection, store: name, reply: []))
                countdown.done()
            }
            if let engine { engine.onQueue(stop) } else { stop() }
        }
    }

    /// A store was added (call after its engine is loaded and serves): every version-2 subscriber
    /// gets `store-added`; those following every store also follow it. A store that appeared
    /// empty (see `BookEngine.load(listing:appearing:)`) is announced at the seq it started at and
    /// followed from there (its first change sets are replayed when already made), so its books
    /// reach every such subscriber as inserts, snapshot or not. Posted to the server thread, which
    /// knows who follows what (`StoreFollowing`).
    public func storeAdded(_ name: String) {
        guard let engine = directory.engine(named: name) else { return }
        let (epoch, current) = engine.position
        let startedEmpty = engine.appearedEmptyAtSeq.withLock { $0 }
        let seq = startedEmpty ?? current
        let notice = MessageEncoder.encode(Event(event: .storeAdded, epoch: epoch, seq: seq, store: name))
        server.post(
            .storeAdded(store: name, notice: notice) { [weak self] connection, every in
                var part = every.request
                part.resumes = startedEmpty.map { [name: ResumePoint(epoch: epoch, seq: $0)] }
                self?.subscribePart(
                    part, store: name, target: ReplyTarget(connection, version: ProtocolVersion.stores),
                    peer: every.peer)
            })
    }

    /// A store went away (call after its engine stopped broadcasting): its subscribers stop
    /// following it, and every version-2 subscriber gets `store-removed` with `reason` (posted to
    /// the server thread, see `storeAdded`).
    public func storeRemoved(_ name: String, reason: String) {
        server.post(.storeRemoved(store: name, reason: reason))
    }

    /// Every store's description: each engine's status copy, never waiting for a store's queue.
    func describeStores(_ names: [String]) -> [StoreInfo] {
        names.compactMap { name in
            directory.engine(named: name).map { engine in
                var info = engine.storeStatus
                info.name = name  // the directory's name is the one clients use
                return info
            }
        }
    }
}

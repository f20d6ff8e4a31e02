import BooksCore
import BooksHTTP
import BooksPlatform
import BooksProtocol
import Dispatch
import Glibc
import Synchronization

/// Where HTTP requests meet the engines: each forwarded request gets an HTTP reply target
/// (`ReplyTarget.Transport.http`, its exchange's id) and goes to its store's engine through
/// `BookEngine.handle`, exactly as a socket or NATS request does; the engine's answers come back through `HTTPChannelRouter` (replies,
/// streamed lists, subscriptions, broadcasts) and are handed to the waiting `HTTPExchange`.
///
/// Never blocks: forwarding and answering only take leaf locks and post.
final class HTTPGateway: Sendable {
    let exchanges = Locked<[UInt64: HTTPExchange]>([:])
    /// Per store, the feeds following it (exchange ids and their filters).
    let feeds = Locked<[String: [UInt64: BookFilter]]>([:])
    /// Per store, the long polls waiting for their first change (exchange ids and their filters).
    let polls = Locked<[String: [UInt64: BookFilter]]>([:])
    /// Feeds of several stores (`/v1/changes`), by exchange id.
    let storesFeeds = Locked<[UInt64: StoresFeed]>([:])
    /// Per store, the feeds of several stores following it (exchange ids and their filters).
    let storeFollowers = Locked<[String: [UInt64: BookFilter]]>([:])
    let nextID = Atomic<UInt64>(1)
    let directory = Locked<(any StoreDirectory)?>(nil)
    let describeStores = Locked<(@Sendable () -> [StoreInfo])?>(nil)
    /// The largest backlog of one SSE client before it is cut off (`client_queue_bytes`).
    let feedLimitBytes: Int

    init(feedLimitBytes: Int) {
        self.feedLimitBytes = feedLimitBytes
    }

    /// A fresh id for a new exchange.
    func makeID() -> UInt64 { nextID.add(1, ordering: .relaxed).oldValue }

    /// The stores' descriptions (`GET /v1/stores`), from each engine's status copy.
    func stores() -> [StoreInfo] { describeStores.withLock { $0 }?() ?? [] }

    /// Sends `request` to its store's engine on behalf of `exchange` (already suspended); an
    /// unknown store is answered at once.
    func forward(_ request: Request, store: String, exchange: HTTPExchange, route: HTTPRoute) {
        guard let engine = directory.withLock({ $0 })?.engine(named: store) else {
            exchange.answer(.response(.error(404, code: "unknown-store", message: "no store named \(store)")))
            return
        }
        exchanges.withLock { $0[exchange.id] = exchange }
        engine.handle(request, from: ReplyTarget(.http, exchange.id), peer: Self.peer)
    }

    /// HTTP requests act as booksd's own user (like NATS requests): who may send them is the
    /// listen address, the token and TLS.
    static var peer: PeerCredentials { PeerCredentials(pid: getpid(), uid: geteuid(), gid: getegid()) }

    /// The exchange of a finished request is forgotten (its feed stops).
    func finished(_ exchange: HTTPExchange) {
        exchanges.withLock { _ = $0.removeValue(forKey: exchange.id) }
        feeds.withLock { Self.forget(exchange.id, in: &$0) }
        polls.withLock { Self.forget(exchange.id, in: &$0) }
        storesFeeds.withLock { _ = $0.removeValue(forKey: exchange.id) }
        storeFollowers.withLock { Self.forget(exchange.id, in: &$0) }
    }

    static func forget(_ id: UInt64, in table: inout [String: [UInt64: BookFilter]]) {
        for store in table.keys { table[store]?[id] = nil }
    }

    /// Resumes every waiting or parked exchange so the daemons can stop.
    func shutDown() {
        for exchange in exchanges.withLock({ Array($0.values) }) { exchange.shutDown() }
    }

    // MARK: From the engines (through HTTPChannelRouter)

    func send(_ reply: Reply, to connection: ReplyTarget) {
        guard let exchange = exchanges.withLock({ $0[connection.number] }), let route = exchange.waitingRoute else {
            return
        }
        if case .storesChanges = route {
            exchange.answer(
                .response(HTTPReplyMapper.failure(reply.error ?? ProtocolError(.internalError, "?"), route: route)))
            return
        }
        if case .changes = route {
            exchange.answer(
                .response(HTTPReplyMapper.failure(reply.error ?? ProtocolError(.internalError, "?"), route: route)))
        } else {
            exchange.answer(.response(HTTPReplyMapper.response(for: route, reply: reply)))
        }
        if case .changes = route {} else { exchanges.withLock { _ = $0.removeValue(forKey: connection.number) } }
    }

    func stream(_ books: BookStreamEncoder, to connection: ReplyTarget) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: connection.number) }),
            case .listBooks(_, let query) = exchange.waitingRoute
        else { return }
        exchange.answer(.list(HTTPListBody(books, query: query)))
    }

    func startSubscription(
        _ connection: ReplyTarget, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64,
        store: String
    ) {
        if startStoreOfFeed(
            connection.number, store: store, reply: reply, filter: filter, initialEvents: initialEvents,
            afterSeq: afterSeq
        ) {
            return
        }
        guard let exchange = exchanges.withLock({ $0[connection.number] }),
            case .changes(let feed) = exchange.waitingRoute
        else { return }
        if feed.longPoll {
            return startLongPoll(exchange, feed: feed, reply: reply, filter: filter, events: initialEvents)
        }
        var events = EventStream(limitBytes: feedLimitBytes, afterSeq: feed.resume?.seq ?? 0)
        for event in initialEvents { events.offer(event) }
        events.skip(through: afterSeq)
        feeds.withLock { $0[feed.store, default: [:]][connection.number] = filter }
        exchange.answer(.events(store: feed.store), events: events)
    }

    /// A long poll: answered at once with the replayed changes, else with the first change to
    /// come, or with none after its timeout.
    private func startLongPoll(
        _ exchange: HTTPExchange, feed: HTTPFeedQuery, reply: Reply, filter: BookFilter, events: [Event]
    ) {
        let epoch = reply.result?.epoch ?? feed.resume?.epoch ?? ""
        let seq = reply.result?.seq ?? feed.resume?.seq ?? 0
        let replayed = events.filter { $0.event == .change || $0.event == .resyncRequired }
        guard replayed.isEmpty else {
            exchanges.withLock { _ = $0.removeValue(forKey: exchange.id) }
            return exchange.answer(.response(LongPollBody.response(replayed, epoch: epoch, seq: seq)))
        }
        polls.withLock { $0[feed.store, default: [:]][exchange.id] = filter }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(feed.timeoutSeconds)) { [weak self] in
            guard let self, self.polls.withLock({ $0[feed.store]?.removeValue(forKey: exchange.id) }) != nil else {
                return
            }
            self.exchanges.withLock { _ = $0.removeValue(forKey: exchange.id) }
            exchange.answer(.response(LongPollBody.response([], epoch: epoch, seq: seq)))
        }
    }

    func broadcast(_ change: SequencedChangeSet, store: String) {
        broadcastToStoresFeeds(change, store: store)
        let followers = feeds.withLock { $0[store] ?? [:] }
        let waiting = polls.withLock { $0[store] ?? [:] }
        guard !followers.isEmpty || !waiting.isEmpty else { return }
        var encoded: [BookFilter: Event?] = [:]
        for (id, filter) in waiting {
            if encoded[filter] == nil { encoded[filter] = .some(MessageEncoder.changeEvent(change, filter: filter)) }
            guard let event = encoded[filter] ?? nil,
                polls.withLock({ $0[store]?.removeValue(forKey: id) }) != nil,
                let exchange = exchanges.withLock({ $0.removeValue(forKey: id) })
            else { continue }
            exchange.answer(.response(LongPollBody.response([event], epoch: change.epoch, seq: change.seq)))
        }
        for (id, filter) in followers {
            guard let exchange = exchanges.withLock({ $0[id] }) else { continue }
            if encoded[filter] == nil { encoded[filter] = .some(MessageEncoder.changeEvent(change, filter: filter)) }
            guard let event = encoded[filter] ?? nil else { continue }
            exchange.offer(event)
        }
    }

    func heartbeat(store: String, epoch: String, seq: UInt64) {
        for id in storeFollowers.withLock({ $0[store] ?? [:] }).keys {
            exchanges.withLock { $0[id] }?.offer(Event(event: .heartbeat, epoch: epoch, seq: seq, store: store))
        }
        let followers = feeds.withLock { $0[store] ?? [:] }
        let event = Event(event: .heartbeat, epoch: epoch, seq: seq)
        for id in followers.keys { exchanges.withLock { $0[id] }?.offer(event) }
    }
}

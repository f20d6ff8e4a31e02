import BooksCore
import BooksHTTP
import BooksProtocol
import Dispatch

/// A feed of several stores (`GET /v1/changes?stores=…`) while it runs: which stores it still
/// waits a subscription start from, and for a long poll what it will answer.
struct StoresFeed: Sendable {
    /// `stores=*`: stores added later are followed too.
    var everyStore: Bool
    /// Where each named store resumes.
    var resumes: [String: ResumePoint]
    /// Stores whose subscription has not started yet (the answer waits for all).
    var pending: Set<String>
    /// Stores announced with `store-added` when they start (added later, or unknown to the
    /// client that resumed).
    var announce: Set<String>
    var longPoll: Bool
    var timeoutSeconds: Int
    /// A long poll: the replayed changes so far, and each store's position.
    var replayed: [Event] = []
    var positions: [String: ResumePoint] = [:]
    /// An SSE feed whose stores still start: each started store's start, and its events so far.
    var starts: [String: ResumePoint] = [:]
    var buffered: [Event] = []
}

/// Feeds of several stores: one subscription per store (each engine's, with the exchange's
/// connection id), their events tagged with the store, each SSE id every store's position
/// (`StoresEventID`); `store-added` / `store-removed` from the registry.
extension HTTPGateway {
    /// Starts a feed of several stores for `exchange` (already suspended): 404 for an unknown
    /// named store; otherwise each store's engine is asked to subscribe.
    func forwardStores(_ query: HTTPStoresFeedQuery, exchange: HTTPExchange) {
        guard let directory = directory.withLock({ $0 }) else {
            return exchange.answer(.response(.error(503, code: "store-unavailable", message: "booksd is starting")))
        }
        let names = query.stores ?? directory.storeNames
        if let unknown = names.first(where: { directory.engine(named: $0) == nil }) {
            return exchange.answer(.response(.error(404, code: "unknown-store", message: "no store named \(unknown)")))
        }
        let announce = query.stores == nil && !query.resumes.isEmpty ? Set(names).subtracting(query.resumes.keys) : []
        let feed = StoresFeed(
            everyStore: query.stores == nil, resumes: query.resumes, pending: Set(names), announce: announce,
            longPoll: query.longPoll, timeoutSeconds: query.timeoutSeconds)
        if !query.longPoll { exchange.prepare(EventStream(stores: feedLimitBytes)) }
        exchanges.withLock { $0[exchange.id] = exchange }
        storesFeeds.withLock { $0[exchange.id] = feed }
        if names.isEmpty { return allStarted(exchange, feed) }
        for name in names { subscribe(name, exchange: exchange, resume: query.resumes[name]) }
    }

    private func subscribe(_ store: String, exchange: HTTPExchange, resume: ResumePoint?) {
        guard let engine = directory.withLock({ $0 })?.engine(named: store) else { return }
        engine.handle(
            Request(id: "h", op: .subscribe, resume: resume, snapshot: false, store: store),
            from: ReplyTarget(.http, exchange.id), peer: Self.peer)
    }

    /// A store's subscription of a feed of several stores started; false when `id` is no such feed.
    ///
    /// Until every store started, a feed's events (replayed and broadcast) are buffered; then
    /// every store is placed at its resume point (or start), the buffer is offered, and each
    /// store moves on to its start: so even the first event's id names every store. The feed's
    /// state and its stream change under `storesFeeds`'s lock, in the order they happen.
    func startStoreOfFeed(
        _ id: UInt64, store: String, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64
    ) -> Bool {
        guard let exchange = exchanges.withLock({ $0[id] }) else { return false }
        let start = ResumePoint(epoch: reply.result?.epoch ?? "", seq: afterSeq)
        let tagged = initialEvents.filter { $0.event == .change || $0.event == .resyncRequired }.map { event in
            var event = event
            event.store = store
            return event
        }
        let added = Event(event: .storeAdded, epoch: start.epoch, seq: start.seq, store: store)
        let (isFeed, startedPoll) = storesFeeds.withLock { feeds -> (Bool, StoresFeed?) in
            guard var feed = feeds[id] else { return (false, nil) }
            let wasPending = feed.pending.remove(store) != nil
            if feed.longPoll {
                feed.replayed += tagged
                feed.positions[store] = tagged.last.map { ResumePoint(epoch: $0.epoch, seq: $0.seq) } ?? start
            } else if wasPending {
                if feed.announce.contains(store) { feed.buffered.append(added) }
                feed.starts[store] = start
                feed.buffered += tagged
                if feed.pending.isEmpty {
                    let ready = feed
                    exchange.withEvents { events in
                        for (name, point) in ready.starts { events.follow(name, from: ready.resumes[name] ?? point) }
                        for event in ready.buffered { events.offer(event) }
                        for (name, point) in ready.starts { events.follow(name, from: point) }
                    }
                    feed.buffered = []
                }
            } else {  // added later: announced, followed from its start
                exchange.withEvents { events in
                    events.offer(added)
                    for event in tagged { events.offer(event) }
                    events.follow(store, from: start)
                }
            }
            feeds[id] = feed
            return (true, wasPending && feed.pending.isEmpty ? feed : nil)
        }
        guard isFeed else { return false }
        storeFollowers.withLock { $0[store, default: [:]][id] = filter }
        if let startedPoll { allStarted(exchange, startedPoll) }
        return true
    }

    /// Every store started: the SSE response begins; a long poll answers its replayed changes
    /// at once, else waits for the first change of any store or its timeout.
    private func allStarted(_ exchange: HTTPExchange, _ feed: StoresFeed) {
        guard feed.longPoll else { return exchange.answer(.events(store: "*")) }
        guard feed.replayed.isEmpty else { return answerPoll(exchange, events: feed.replayed, at: feed.positions) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(feed.timeoutSeconds)) { [weak self] in
            guard let self, let feed = self.storesFeeds.withLock({ $0[exchange.id] }) else { return }
            self.answerPoll(exchange, events: [], at: feed.positions)
        }
    }

    private func answerPoll(_ exchange: HTTPExchange, events: [Event], at positions: [String: ResumePoint]) {
        guard storesFeeds.withLock({ $0.removeValue(forKey: exchange.id) }) != nil else { return }
        storeFollowers.withLock { Self.forget(exchange.id, in: &$0) }
        exchanges.withLock { _ = $0.removeValue(forKey: exchange.id) }
        exchange.answer(.response(LongPollBody.response(events, last: StoresEventID.format(positions))))
    }

    /// A change of `store` to the feeds of several stores following it: buffered while a feed's
    /// stores still start, else offered (under `storesFeeds`'s lock, ordered with the start).
    func broadcastToStoresFeeds(_ change: SequencedChangeSet, store: String) {
        let followers = storeFollowers.withLock { $0[store] ?? [:] }
        guard !followers.isEmpty else { return }
        var encoded: [BookFilter: Event?] = [:]
        for (id, filter) in followers {
            if encoded[filter] == nil { encoded[filter] = .some(MessageEncoder.changeEvent(change, filter: filter)) }
            guard var event = encoded[filter] ?? nil, let exchange = exchanges.withLock({ $0[id] }) else { continue }
            event.store = store
            let poll = storesFeeds.withLock { feeds -> [String: ResumePoint]? in
                guard var feed = feeds[id] else { return nil }
                if feed.longPoll {
                    guard feed.pending.isEmpty else { return nil }
                    feed.positions[store] = ResumePoint(epoch: change.epoch, seq: change.seq)
                    return feed.positions
                }
                if feed.pending.isEmpty {
                    exchange.offer(event)
                } else {
                    feed.buffered.append(event)
                    feeds[id] = feed
                }
                return nil
            }
            if let poll { answerPoll(exchange, events: [event], at: poll) }
        }
    }

    /// A store was added: feeds of every store follow it from now (announced by `store-added`).
    func storeAdded(_ store: String) {
        let following = storesFeeds.withLock { $0.filter { $0.value.everyStore && !$0.value.longPoll }.keys }
        for id in following {
            guard let exchange = exchanges.withLock({ $0[id] }) else { continue }
            subscribe(store, exchange: exchange, resume: nil)
        }
    }

    /// A store was removed: its followers get `store-removed` and follow it no more.
    func storeRemoved(_ store: String, reason: String) {
        let followers = storeFollowers.withLock { $0.removeValue(forKey: store) ?? [:] }
        for id in followers.keys {
            exchanges.withLock { $0[id] }?.offer(
                Event(event: .storeRemoved, epoch: "", seq: 0, reason: reason, store: store))
        }
    }
}

import BooksCore
import BooksPlatform
import BooksProtocol

/// A change feed over several stores (protocol version 2) that survives daemon restarts: what
/// `ResilientSubscription` is for one store, with one feed state — and so one resume point — per
/// store (sequence numbers and epochs are per store).
///
/// Each reconnection subscribes to `stores` (`["*"]`: every store, also those added later) with
/// each known store's resume point; replayed changes already seen are skipped per store. Updates
/// reach `body` with their store; `onStoreEvent` hears stores added, removed or not followed.
public struct ResilientStoresSubscription: Sendable {
    /// How the feed of each store is followed (socket, filter, mirror, back-off, …; its `store`
    /// is ignored).
    public var base: ResilientSubscription
    /// The stores to follow; `["*"]` for every store.
    public var stores: [String]
    /// Hears `storeAdded`, `storeRemoved` and `subscribeFailed` items (on the reader thread).
    public var onStoreEvent: (@Sendable (StoreFeedItem) -> Void)?

    /// Creates the description; nothing happens until `forEachUpdate` runs.
    public init(
        base: ResilientSubscription, stores: [String] = ["*"],
        onStoreEvent: (@Sendable (StoreFeedItem) -> Void)? = nil
    ) {
        self.base = base
        self.stores = stores
        self.onStoreEvent = onStoreEvent
    }

    /// One store's feed state: a mirror, or the position alone.
    enum StoreState: Sendable {
        case plain(PlainFeedState)
        case mirror(MirrorState)

        var resumePoint: ResumePoint? {
            switch self {
            case .plain(let s): return s.resumePoint
            case .mirror(let s): return s.resumePoint
            }
        }

        mutating func apply(_ item: FeedItem) -> MirrorUpdate? {
            switch self {
            case .plain(var s):
                defer { self = .plain(s) }
                return s.apply(item)
            case .mirror(var s):
                defer { self = .mirror(s) }
                return s.apply(item)
            }
        }
    }

    /// The state of a store that appeared at `point`: known to hold no books there.
    static func emptyState(at point: ResumePoint, fresh: StoreState) -> StoreState {
        switch fresh {
        case .plain: return .plain(PlainFeedState(resumingAt: point))
        case .mirror(var mirror):
            _ = mirror.apply(.snapshot(FeedSnapshot(epoch: point.epoch, seq: point.seq, books: [])))
            return .mirror(mirror)
        }
    }

    /// Calls `body` with each store's updates, in order per store, on the connection's reader
    /// thread, until the calling task is cancelled (returns) or an error reconnecting cannot fix
    /// (thrown), as `ResilientSubscription.forEachUpdate`.
    public func forEachUpdate(
        _ body: @escaping @Sendable (String, MirrorUpdate) -> Void
    ) async throws(BooksClientError) {
        let config = self
        let states = Locked<[String: StoreState]>([:])
        let fresh: @Sendable () -> StoreState = {
            config.base.mirror
                ? .mirror(MirrorState(filter: config.base.filter, emitInitialSnapshot: config.base.initial))
                : .plain(PlainFeedState())
        }
        let task = Task { () -> BooksClientError? in
            var failures = 0
            var everConnected = false
            while !Task.isCancelled {
                var reason = "connection closed"
                do throws(BooksClientError) {
                    let client = try await config.base.connectClient()
                    defer { client.close() }
                    everConnected = true
                    let resumes = states.withLock { $0.compactMapValues(\.resumePoint) }
                    config.base.onStatus?(.subscribed(resumed: !resumes.isEmpty))
                    let shutdown = Locked<String?>(nil)
                    let ended = await client.followStores(
                        config.stores, filter: config.base.filter, resumes: resumes, snapshot: config.base.mirror
                    ) { item in
                        switch item {
                        case .item(let store, let feedItem):
                            if case .shutdown(let why) = feedItem {
                                shutdown.withLock { $0 = "daemon shut down" + (why.map { ": \($0)" } ?? "") }
                            }
                            if case .resyncRequired(_, _, let why) = feedItem {
                                config.base.onStatus?(.resyncRequired(reason: why))
                            }
                            let update = states.withLock { all -> MirrorUpdate? in
                                var state = all[store] ?? fresh()
                                defer { all[store] = state }
                                return state.apply(feedItem)
                            }
                            if let update { body(store, update) }
                        case .storeRemoved(let store, _):
                            _ = states.withLock { $0.removeValue(forKey: store) }
                            config.onStoreEvent?(item)
                        case .storeAdded(let store, let point):
                            // A store that appears starts empty here: its books come as inserts
                            // (its first change sets, or a snapshot diffed against nothing), as a
                            // store that goes ends with its books deleted.
                            states.withLock { $0[store] = Self.emptyState(at: point, fresh: fresh()) }
                            config.onStoreEvent?(item)
                        case .subscribeFailed:
                            config.onStoreEvent?(item)
                        }
                    }
                    failures = 0
                    if let why = shutdown.withLock({ $0 }) { reason = why }
                    if let ended { throw ended }
                } catch {
                    if !error.isTransient || (!everConnected && !config.base.waitForDaemon) { return error }
                    reason = error.description
                }
                if Task.isCancelled { break }
                let delay = config.base.backoff.delay(attempt: failures)
                failures += 1
                config.base.onStatus?(.disconnected(reason: reason, retryIn: delay))
                do { try await Task.sleep(for: delay) } catch { break }
            }
            return nil
        }
        let failure = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        if let failure { throw failure }
    }
}

extension BooksClient {
    /// Subscribes to `stores` and hands each item to `deliver` on the reader thread; returns when
    /// the feed ends (nil: closed normally, or the daemon shut down).
    func followStores(
        _ stores: [String], filter: BookFilter, resumes: [String: ResumePoint], snapshot: Bool,
        deliver: @escaping @Sendable (StoreFeedItem) -> Void
    ) async -> BooksClientError? {
        let (ends, end) = AsyncStream<BooksClientError?>.makeStream()
        var sink = SocketConnection.EventSink(
            deliver: { deliver(.item(store: "", $0)) },
            finish: { error in
                end.yield(error)
                end.finish()
            })
        sink.deliverStore = deliver
        do {
            try connection.installSink(sink)
        } catch {
            return error
        }
        let request = Request(
            id: makeID(), op: .subscribe, filter: filter.isEmpty ? nil : filter, paged: true,
            snapshot: snapshot ? nil : false, stores: stores, resumes: resumes.isEmpty ? nil : resumes)
        if case .failure(let error) = await connection.send(request) { connection.removeSink(finishing: error) }
        var ended: BooksClientError?
        for await error in ends { ended = error }
        return ended
    }
}

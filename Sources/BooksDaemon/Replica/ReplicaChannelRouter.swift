import BooksCore
import BooksProtocol
import Synchronization

/// The channel of a replica's engine. Replies go to the socket server as before (those to the
/// replica's own writes to `ReplicaLink`), and every change set of the local file is handed to the
/// replica; but the feed its subscribers see is the owner's: the local change sets are not
/// broadcast, the owner's are (`announce`, once the file holds them), and the positions stated to
/// subscribers (`subscribe`'s reply, its snapshot, `resync-required`, heartbeats) are the owner
/// position announced last. Adds no blocking: the link only appends to its inbox.
///
/// The replica stage of the store's channel chain (see `StoreChannels`), there from the engine's
/// construction; its `ReplicaLink` is set once (`link(_:)`, by `ReplicaLink.attach`). Until then
/// it passes everything to `local` unchanged, as the store's plain chain would.
final class ReplicaChannelRouter: ClientChannel {
    let local: any ClientChannel
    private let linked = AtomicLazyReference<ReplicaLink>()
    /// What the feed announced. Held while a subscription starts or an announcement is posted, so
    /// a subscription starts exactly after the change sets it was told of (or replayed).
    private let feed = Mutex(ReplicaFeed())

    init(local: any ClientChannel) {
        self.local = local
    }

    /// Links the replica; returns false (and changes nothing) when one was linked before.
    func link(_ link: ReplicaLink) -> Bool { linked.storeIfNil(link) === link }

    /// The replica, once linked.
    var link: ReplicaLink? { linked.load() }

    /// Keeps `position` for `hello` (`BookEngine.feedPosition`).
    private func publish(_ position: (epoch: String, seq: UInt64)?) {
        link?.engine.announcedPosition.withLock { $0 = position }
    }

    /// Broadcasts the owner's change set `change` (the replica's file holds it) to the subscribers.
    func announce(_ change: SequencedChangeSet) {
        feed.withLock { feed in
            feed.announce(change)
            publish(feed.position)
            local.broadcast(change)
        }
    }

    /// Moves the announced position to `epoch`/`seq` without a change set (the owner's books were
    /// read again): later change sets continue from there.
    func jump(epoch: String, seq: UInt64) {
        feed.withLock { feed in
            feed.jump(epoch: epoch, seq: seq)
            publish(feed.position)
        }
    }

    /// Replays `announcements` (what the feed announced before a restart, oldest first) and
    /// moves to `epoch`/`seq` (the record's position) unless they end there.
    func restore(_ announcements: [ReplicaAnnouncement], epoch: String, seq: UInt64) {
        feed.withLock { feed in
            for announcement in announcements {
                switch announcement {
                case .change(let change): feed.announce(change)
                case .jump(let epoch, let seq): feed.jump(epoch: epoch, seq: seq)
                }
            }
            if feed.position?.epoch != epoch || feed.position?.seq != seq { feed.jump(epoch: epoch, seq: seq) }
            publish(feed.position)
        }
    }

    /// The owner change sets the feed keeps to replay, oldest first.
    var kept: [SequencedChangeSet] { feed.withLock { $0.kept } }

    /// At most this many change sets are kept to replay.
    var keptLimit: Int { feed.withLock { $0.limit } }

    func send(_ reply: Reply, to connection: ReplyTarget) {
        guard let link else { return local.send(reply, to: connection) }
        if connection.transport == .replica {
            link.localWriteAnswered(reply)
        } else {
            if !reply.ok { feed.withLock { $0.forget(connection) } }
            local.send(reply, to: connection)
        }
    }

    func startSubscription(
        _ connection: ReplyTarget, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64
    ) {
        guard link != nil else {
            return local.startSubscription(
                connection, reply: reply, filter: filter, initialEvents: initialEvents, afterSeq: afterSeq)
        }
        feed.withLock { feed in
            let (epoch, seq) = feed.position ?? ("", 0)
            var reply = reply
            if reply.result != nil {
                reply.result?.epoch = epoch
                reply.result?.seq = seq
            }
            var events = initialEvents
            switch feed.start(connection) {
            case .plain:
                break
            case .replay(let missed):
                events = missed.compactMap { MessageEncoder.changeEvent($0, filter: filter) }
            case .resync(let reason):
                events = events.map { event in
                    var event = event
                    if event.event == .resyncRequired { event.reason = reason }
                    return event
                }
            }
            // The engine replays its own lineage only (a resume the log cannot serve was asked of
            // it in none, so it says `resync-required`): every event is stated at the owner position.
            for index in events.indices where events[index].event != .change {
                events[index].epoch = epoch
                events[index].seq = seq
            }
            local.startSubscription(connection, reply: reply, filter: filter, initialEvents: events, afterSeq: seq)
        }
    }

    /// `request` (a `subscribe`) as the engine is to answer it: a resume point the feed replays is
    /// taken out (the engine starts a plain feed, `startSubscription` adds the replay); any other
    /// resume point or `since` is made one of no lineage (the engine answers `resync-required` and
    /// its snapshot, as the socket does for a point its change log no longer holds). Unchanged
    /// until the replica is linked.
    func subscribeRequest(_ request: Request, from connection: ReplyTarget) -> Request {
        guard link != nil, request.resume != nil || request.since != nil else { return request }
        var rewritten = request
        rewritten.since = nil
        rewritten.resume = nil
        feed.withLock { feed in
            var point = request.resume
            if let since = request.since {
                point =
                    since.time != nil
                    ? nil : since.seq.map { ResumePoint(epoch: since.epoch ?? feed.position?.epoch ?? "", seq: $0) }
            }
            if feed.resume(connection, after: point) {
                rewritten.snapshot = false
            } else {
                rewritten.resume = ResumePoint(epoch: "", seq: 0)
            }
        }
        return rewritten
    }

    func stream(_ books: BookStreamEncoder, to connection: ReplyTarget) {
        guard link != nil, books.message == .snapshot else { return local.stream(books, to: connection) }
        var books = books
        let (epoch, seq) = feed.withLock { $0.position } ?? ("", 0)
        books.reposition(epoch: epoch, seq: seq)
        local.stream(books, to: connection)
    }

    func stopSubscription(_ connection: ReplyTarget, reply: Reply) {
        local.stopSubscription(connection, reply: reply)
    }

    func broadcast(_ change: SequencedChangeSet) {
        guard let link else { return local.broadcast(change) }
        link.post(.localChanged(change))
    }

    func broadcastHeartbeat(epoch: String, seq: UInt64) {
        guard link != nil else { return local.broadcastHeartbeat(epoch: epoch, seq: seq) }
        feed.withLock { feed in
            guard let position = feed.position else { return }
            local.broadcastHeartbeat(epoch: position.epoch, seq: position.seq)
        }
    }

    func broadcastConflict(_ event: Event) { local.broadcastConflict(event) }

    var statistics: ServerStatistics { local.statistics }

    @discardableResult
    func afterPendingCommands(_ body: @escaping @Sendable () -> Void) -> Bool {
        local.afterPendingCommands(body)
    }
}

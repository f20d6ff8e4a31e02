import BooksCore
import BooksProtocol

/// The `ClientChannel` of one named store: what its engine sends goes to the shared socket server
/// tagged with the store, so the server keeps one resume point per store and version-2 clients
/// see the store on every event. Made once per engine, before it (see `StoreChannels`). Never
/// blocks: every call posts a command.
///
/// Each answer is shaped by its `ReplyTarget` alone: its version says whether events name their
/// store, and the per-store part of a subscription to several stores (whose one reply the router
/// already sent) is answered with an event, `subscribed` (with the store's position) or
/// `subscribe-failed`. Targets of other transports are not the socket server's and are ignored.
/// What a connection follows is the server thread's to note as it applies these commands
/// (`StoreFollowing`); this channel keeps no per-connection state.
public final class StoreChannel: ClientChannel {
    /// The store's name.
    public let store: String
    let server: SocketServer
    /// The engine's position (what a `subscribe-failed` event states).
    let enginePosition: @Sendable () -> (epoch: String, seq: UInt64)

    /// The channel of store `store` on `server`; `position` is its engine's position.
    public init(store: String, server: SocketServer, position: @escaping @Sendable () -> (epoch: String, seq: UInt64)) {
        self.store = store
        self.server = server
        self.enginePosition = position
    }

    /// Queues `reply`; the failure of a per-store part of a multi-store subscribe becomes a
    /// `subscribe-failed` event.
    public func send(_ reply: Reply, to target: ReplyTarget) {
        guard let connection = target.socketConnection else { return }
        guard target.subscribePart != nil else {
            server.post(.send(connection, MessageEncoder.encode(reply), failure: !reply.ok))
            return
        }
        let (epoch, seq) = enginePosition()
        let reason = reply.error.map { "\($0.code.rawValue): \($0.message)" } ?? "not subscribed"
        let event = Event(event: .subscribeFailed, epoch: epoch, seq: seq, reason: reason, store: store)
        server.post(.sendEvent(connection, MessageEncoder.encode(event), answersPart: store))
    }

    /// Starts the subscription of this store (see `SocketServer.startSubscription`).
    public func startSubscription(
        _ target: ReplyTarget, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64
    ) {
        guard let connection = target.socketConnection else { return }
        let tagged = target.namesStores
        let first: [UInt8]
        let kind: ConnectionStateMachine.OutputKind
        if target.subscribePart != nil {
            let event = Event(
                event: .subscribed, epoch: reply.result?.epoch ?? "", seq: reply.result?.seq ?? afterSeq, store: store)
            first = MessageEncoder.encode(event)
            kind = .unsolicited
        } else {
            first = MessageEncoder.encode(reply)
            kind = .reply
        }
        let events = initialEvents.map { event in
            var event = event
            if tagged { event.store = store }
            return MessageEncoder.encode(event)
        }
        server.post(
            .startSubscription(
                connection, store: store, reply: first, replyKind: kind, filter: filter, initialEvents: events,
                afterSeq: afterSeq))
    }

    /// Streams a list reply or (named, for a version-2 connection) snapshot.
    public func stream(_ books: BookStreamEncoder, to target: ReplyTarget) {
        guard let connection = target.socketConnection else { return }
        var books = books
        if books.message == .snapshot && target.namesStores { books.store = store }
        server.post(.stream(connection, books))
    }

    /// Ends this store's subscription of `connection` and writes `reply`.
    public func stopSubscription(_ target: ReplyTarget, reply: Reply) {
        guard let connection = target.socketConnection else { return }
        server.post(.stopSubscription(connection, store: store, reply: MessageEncoder.encode(reply)))
    }

    /// Sends `change` to the subscribers of this store.
    public func broadcast(_ change: SequencedChangeSet) {
        server.post(.broadcast(change, store: store))
    }

    /// Sends a heartbeat of this store to its subscribers.
    public func broadcastHeartbeat(epoch: String, seq: UInt64) {
        server.post(.heartbeat(epoch: epoch, seq: seq, store: store))
    }

    /// Sends a `conflict` event of this store to its subscribers that asked for them.
    public func broadcastConflict(_ event: Event) {
        server.post(.conflict(event, store: store))
    }

    /// The shared server's counters.
    public var statistics: ServerStatistics { server.statistics }

    /// Runs `body` after every command posted before it.
    @discardableResult
    public func afterPendingCommands(_ body: @escaping @Sendable () -> Void) -> Bool {
        server.afterPendingCommands(body)
    }
}

import BooksCore
import BooksProtocol
import Synchronization

/// The NATS stage of a published store's channel chain (see `StoreChannels`): everything goes to
/// `local` (the socket server and HTTP stages) as before, plus, once the store is linked to NATS
/// (`link(publisher:responder:)`, once, by `NATSStoreLinks`), every change set offered to its
/// NATS publisher and every reply to a NATS request routed to its responder. Unlinked (NATS
/// refused booksd's credentials, or before the NATS links start) it passes everything to `local`.
/// Adds no blocking and no lock: `offer` and `send` only hand over, the link is read lock-free.
public final class NATSChannelRouter: ClientChannel {
    let local: any ClientChannel
    private let linked = AtomicLazyReference<Endpoints>()

    /// The store's NATS publisher and responder.
    final class Endpoints: Sendable {
        let publisher: NATSPublisher
        let responder: NATSRequestResponder?

        init(publisher: NATSPublisher, responder: NATSRequestResponder?) {
            self.publisher = publisher
            self.responder = responder
        }
    }

    /// The stage in front of `local`, not linked yet.
    public init(local: any ClientChannel) {
        self.local = local
    }

    /// Routes between `local` (the socket server), `publisher` and `responder`.
    public convenience init(local: any ClientChannel, publisher: NATSPublisher, responder: NATSRequestResponder?) {
        self.init(local: local)
        link(publisher: publisher, responder: responder)
    }

    /// Links the store's `publisher` and `responder`; returns false (and changes nothing) when it
    /// was linked before.
    @discardableResult
    public func link(publisher: NATSPublisher, responder: NATSRequestResponder?) -> Bool {
        let endpoints = Endpoints(publisher: publisher, responder: responder)
        return linked.storeIfNil(endpoints) === endpoints
    }

    /// Whether the store is linked to NATS.
    public var isLinked: Bool { linked.load() != nil }

    public func send(_ reply: Reply, to connection: ReplyTarget) {
        if connection.transport == .nats {
            linked.load()?.responder?.send(reply, to: connection)
        } else {
            local.send(reply, to: connection)
        }
    }

    public func startSubscription(
        _ connection: ReplyTarget, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64
    ) {
        local.startSubscription(
            connection, reply: reply, filter: filter, initialEvents: initialEvents, afterSeq: afterSeq)
    }

    public func stream(_ books: BookStreamEncoder, to connection: ReplyTarget) {
        if connection.transport == .nats {
            linked.load()?.responder?.send(books, to: connection)
        } else {
            local.stream(books, to: connection)
        }
    }

    public func stopSubscription(_ connection: ReplyTarget, reply: Reply) {
        local.stopSubscription(connection, reply: reply)
    }

    public func broadcast(_ change: SequencedChangeSet) {
        local.broadcast(change)
        linked.load()?.publisher.offer(change)
    }

    public func broadcastHeartbeat(epoch: String, seq: UInt64) {
        local.broadcastHeartbeat(epoch: epoch, seq: seq)
    }

    public func broadcastConflict(_ event: Event) { local.broadcastConflict(event) }

    public var statistics: ServerStatistics { local.statistics }

    @discardableResult
    public func afterPendingCommands(_ body: @escaping @Sendable () -> Void) -> Bool {
        local.afterPendingCommands(body)
    }
}

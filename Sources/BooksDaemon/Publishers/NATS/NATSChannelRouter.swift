import BooksCore
import BooksProtocol

/// The engine's channel when NATS is on: the socket server as before, plus every change set
/// offered to the NATS publisher and every reply to a NATS request routed to the responder.
/// Adds no blocking: `offer` and `send` only hand over.
public final class NATSChannelRouter: ClientChannel {
    let local: any ClientChannel
    let publisher: NATSPublisher
    let responder: NATSRequestResponder?

    /// Routes between `local` (the socket server), `publisher` and `responder`.
    public init(local: any ClientChannel, publisher: NATSPublisher, responder: NATSRequestResponder?) {
        self.local = local
        self.publisher = publisher
        self.responder = responder
    }

    public func send(_ reply: Reply, to connection: ReplyTarget) {
        if connection.transport == .nats {
            responder?.send(reply, to: connection)
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
            responder?.send(books, to: connection)
        } else {
            local.stream(books, to: connection)
        }
    }

    public func stopSubscription(_ connection: ReplyTarget, reply: Reply) {
        local.stopSubscription(connection, reply: reply)
    }

    public func broadcast(_ change: SequencedChangeSet) {
        local.broadcast(change)
        publisher.offer(change)
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

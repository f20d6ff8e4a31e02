import BooksCore
import BooksProtocol

/// An engine's channel when HTTP is on: everything goes to `local` (the store's channel) as
/// before, replies, lists and subscriptions of HTTP connection ids go to the `HTTPGateway`, and
/// every broadcast and heartbeat also reaches the store's HTTP feeds. Adds no blocking.
final class HTTPChannelRouter: ClientChannel {
    let local: any ClientChannel
    let gateway: HTTPGateway
    let store: String

    init(local: any ClientChannel, gateway: HTTPGateway, store: String) {
        self.local = local
        self.gateway = gateway
        self.store = store
    }

    func send(_ reply: Reply, to connection: ReplyTarget) {
        if connection.transport == .http {
            gateway.send(reply, to: connection)
        } else {
            local.send(reply, to: connection)
        }
    }

    func startSubscription(
        _ connection: ReplyTarget, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64
    ) {
        if connection.transport == .http {
            gateway.startSubscription(
                connection, reply: reply, filter: filter, initialEvents: initialEvents, afterSeq: afterSeq,
                store: store)
        } else {
            local.startSubscription(
                connection, reply: reply, filter: filter, initialEvents: initialEvents, afterSeq: afterSeq)
        }
    }

    func stream(_ books: BookStreamEncoder, to connection: ReplyTarget) {
        if connection.transport == .http {
            gateway.stream(books, to: connection)
        } else {
            local.stream(books, to: connection)
        }
    }

    func stopSubscription(_ connection: ReplyTarget, reply: Reply) {
        if connection.transport != .http { local.stopSubscription(connection, reply: reply) }
    }

    func broadcast(_ change: SequencedChangeSet) {
        local.broadcast(change)
        gateway.broadcast(change, store: store)
    }

    func broadcastHeartbeat(epoch: String, seq: UInt64) {
        local.broadcastHeartbeat(epoch: epoch, seq: seq)
        gateway.heartbeat(store: store, epoch: epoch, seq: seq)
    }

    func broadcastConflict(_ event: Event) { local.broadcastConflict(event) }

    var statistics: ServerStatistics { local.statistics }

    @discardableResult
    func afterPendingCommands(_ body: @escaping @Sendable () -> Void) -> Bool {
        local.afterPendingCommands(body)
    }
}

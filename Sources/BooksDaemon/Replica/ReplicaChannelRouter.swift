import BooksCore
import BooksProtocol

/// The channel of a replica's engine: everything goes to the socket server as before; every
/// change set is also handed to the replica (`ReplicaLink`), and replies to the replica's own
/// writes go to it. Adds no blocking: the link only appends to its inbox.
final class ReplicaChannelRouter: ClientChannel {
    let local: any ClientChannel
    let link: ReplicaLink

    init(local: any ClientChannel, link: ReplicaLink) {
        self.local = local
        self.link = link
    }

    func send(_ reply: Reply, to connection: ReplyTarget) {
        if connection.transport == .replica {
            link.localWriteAnswered(reply)
        } else {
            local.send(reply, to: connection)
        }
    }

    func startSubscription(
        _ connection: ReplyTarget, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64
    ) {
        local.startSubscription(
            connection, reply: reply, filter: filter, initialEvents: initialEvents, afterSeq: afterSeq)
    }

    func stream(_ books: BookStreamEncoder, to connection: ReplyTarget) {
        local.stream(books, to: connection)
    }

    func stopSubscription(_ connection: ReplyTarget, reply: Reply) {
        local.stopSubscription(connection, reply: reply)
    }

    func broadcast(_ change: SequencedChangeSet) {
        local.broadcast(change)
        link.post(.localChanged(change))
    }

    func broadcastHeartbeat(epoch: String, seq: UInt64) {
        local.broadcastHeartbeat(epoch: epoch, seq: seq)
    }

    func broadcastConflict(_ event: Event) { local.broadcastConflict(event) }

    var statistics: ServerStatistics { local.statistics }

    @discardableResult
    func afterPendingCommands(_ body: @escaping @Sendable () -> Void) -> Bool {
        local.afterPendingCommands(body)
    }
}

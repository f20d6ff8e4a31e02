import BooksCore
import BooksProtocol

/// What the reconciler needs from the socket server: replies, subscriptions and broadcasts.
///
/// Calls must be applied in the order they are made (FIFO across all kinds), which is what makes
/// "initial events, then every later change" gap-free for a new subscriber.
public protocol ClientChannel: AnyObject, Sendable {
    func send(_ reply: Reply, to connection: ConnectionID)
    func startSubscription(_ connection: ConnectionID, reply: Reply, filter: BookFilter,
                           initialEvents: [Event], afterSeq: UInt64)
    func stopSubscription(_ connection: ConnectionID, reply: Reply)
    func broadcast(_ change: SequencedChangeSet)
    func broadcastHeartbeat(epoch: String, seq: UInt64)
    var statistics: ServerStatistics { get }
}

extension SocketServer: ClientChannel {}

import BooksCore
import BooksProtocol

/// The socket server as the channel of a single engine (its one store is unnamed): a socket
/// target is one of its connections; another transport's target is not its own and is ignored.
extension SocketServer: ClientChannel {
    /// Queues `reply` for the target's connection.
    public func send(_ reply: Reply, to target: ReplyTarget) {
        guard let connection = target.socketConnection else { return }
        send(reply, to: connection)
    }

    /// Starts the subscription of the target's connection (see the `ConnectionID` variant).
    public func startSubscription(
        _ target: ReplyTarget, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64
    ) {
        guard let connection = target.socketConnection else { return }
        startSubscription(connection, reply: reply, filter: filter, initialEvents: initialEvents, afterSeq: afterSeq)
    }

    /// Streams `books` to the target's connection.
    public func stream(_ books: BookStreamEncoder, to target: ReplyTarget) {
        guard let connection = target.socketConnection else { return }
        stream(books, to: connection)
    }

    /// Ends the subscription of the target's connection and writes `reply`.
    public func stopSubscription(_ target: ReplyTarget, reply: Reply) {
        guard let connection = target.socketConnection else { return }
        stopSubscription(connection, reply: reply)
    }
}

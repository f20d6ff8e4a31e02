import BooksCore
import BooksProtocol

/// What a book engine needs from the socket server: replies, subscriptions and broadcasts.
///
/// Calls must be applied in the order they are made (FIFO across all kinds), which is what makes
/// "initial events, then every later change" gap-free for a new subscriber.
public protocol ClientChannel: AnyObject, Sendable {
    func send(_ reply: Reply, to connection: ReplyTarget)
    func startSubscription(
        _ connection: ReplyTarget, reply: Reply, filter: BookFilter,
        initialEvents: [Event], afterSeq: UInt64)
    /// Streams a list reply or snapshot to `connection` after what was sent to it before,
    /// producing pages only as its output drains.
    func stream(_ books: BookStreamEncoder, to connection: ReplyTarget)
    func stopSubscription(_ connection: ReplyTarget, reply: Reply)
    func broadcast(_ change: SequencedChangeSet)
    func broadcastHeartbeat(epoch: String, seq: UInt64)
    /// Sends a `conflict` event to the subscribers of the store that asked for them.
    func broadcastConflict(_ event: Event)
    var statistics: ServerStatistics { get }
    /// Runs `body` (off the caller's thread is allowed) after every call made before it took effect.
    @discardableResult
    func afterPendingCommands(_ body: @escaping @Sendable () -> Void) -> Bool
    /// `request` (a `subscribe`) as the engine is to answer it: what the chain's outermost stage
    /// makes of it (a replica's stage states its resume point in the owner's seqs).
    func subscribeRequest(_ request: Request, from connection: ReplyTarget) -> Request
}

extension ClientChannel {
    /// Default for channels with no subscribers that take conflict events: sends nothing.
    public func broadcastConflict(_ event: Event) {}

    /// Default for channels that apply calls synchronously: runs `body` at once.
    @discardableResult
    public func afterPendingCommands(_ body: @escaping @Sendable () -> Void) -> Bool {
        body()
        return true
    }

    /// Default for every stage but a replica's: the request as it is.
    public func subscribeRequest(_ request: Request, from connection: ReplyTarget) -> Request { request }
}

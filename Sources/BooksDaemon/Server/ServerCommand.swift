import BooksCore
import BooksProtocol

/// A request from another thread to the server thread.
enum ServerCommand: Sendable {
    /// A reply; `failure` when it is an error (see `ConnectionStateMachine.OutputKind.failure`).
    case send(ConnectionID, [UInt8], failure: Bool = false)
    /// Output that answers no request (an event for this connection alone).
    case sendEvent(ConnectionID, [UInt8])
    /// `reply` is queued as `replyKind` (`.unsolicited` when it is a per-store `subscribed` event
    /// of a subscription to several stores, whose one reply was already sent).
    case startSubscription(
        ConnectionID, store: String, reply: [UInt8], replyKind: ConnectionStateMachine.OutputKind,
        filter: BookFilter, initialEvents: [[UInt8]], afterSeq: UInt64)
    case stream(ConnectionID, BookStreamEncoder)
    /// Ends the subscription of `store` (every store when nil); `reply` (none when empty) follows.
    case stopSubscription(ConnectionID, store: String?, reply: [UInt8])
    case broadcast(SequencedChangeSet, store: String)
    case heartbeat(epoch: String, seq: UInt64, store: String)
    /// A `conflict` event for the subscribers of `store` that asked for them.
    case conflict(Event, store: String)
    /// Accept the connections already waiting, then close the listener.
    case stopAccepting
    /// Signal `barrier` once the input already in the sockets was read and handed over.
    case deliverPendingInput(PendingInputBarrier, deadline: ContinuousClock.Instant)
    case shutdown(reason: String, deadline: ContinuousClock.Instant)
    /// Runs a closure on the server thread (liveness probe, "after the commands before me").
    case run(@Sendable () -> Void)
}

import BooksCore
import BooksProtocol

/// A request from another thread to the server thread.
enum ServerCommand: Sendable {
    /// A reply; `failure` when it is an error (see `ConnectionStateMachine.OutputKind.failure`).
    case send(ConnectionID, [UInt8], failure: Bool = false)
    /// Output that answers no request (an event for this connection alone); `answersPart`: it
    /// answers that store's part of a multi-store subscribe (a `subscribe-failed` event).
    case sendEvent(ConnectionID, [UInt8], answersPart: String? = nil)
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
    /// Store `store` was added: every version-2 subscriber gets `notice`; those following every
    /// store note its part pending and `follow` hands that part to the store's engine.
    case storeAdded(
        store: String, notice: [UInt8],
        follow: @Sendable (ConnectionID, StoreFollowing.EveryStore) -> Void)
    /// Store `store` is gone: its subscribers stop following it, and every version-2 subscriber
    /// gets `store-removed` with `reason` at the store's last broadcast position.
    case storeRemoved(store: String, reason: String)
    /// Accept the connections already waiting, then close the listener.
    case stopAccepting
    /// Signal `barrier` once the input already in the sockets was read and handed over.
    case deliverPendingInput(PendingInputBarrier, deadline: ContinuousClock.Instant)
    case shutdown(reason: String, deadline: ContinuousClock.Instant)
    /// Runs a closure on the server thread (liveness probe, "after the commands before me").
    case run(@Sendable () -> Void)
}

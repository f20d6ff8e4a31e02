import BooksCore
import BooksProtocol

/// A request from another thread to the server thread.
enum ServerCommand: Sendable {
    case send(ConnectionID, [UInt8])
    case startSubscription(ConnectionID, reply: [UInt8], filter: BookFilter, initialEvents: [[UInt8]], afterSeq: UInt64)
    case stream(ConnectionID, BookStreamEncoder)
    case stopSubscription(ConnectionID, reply: [UInt8])
    case broadcast(SequencedChangeSet)
    case heartbeat(epoch: String, seq: UInt64)
    /// Accept the connections already waiting, then close the listener.
    case stopAccepting
    /// Signal `barrier` once the input already in the sockets was read and handed over.
    case deliverPendingInput(PendingInputBarrier, deadline: ContinuousClock.Instant)
    case shutdown(reason: String, deadline: ContinuousClock.Instant)
    /// Runs a closure on the server thread (liveness probe, "after the commands before me").
    case run(@Sendable () -> Void)
}

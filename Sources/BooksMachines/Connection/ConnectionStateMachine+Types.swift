import BooksCore
import BooksProtocol

extension ConnectionStateMachine {
    /// Where a connection stands in the protocol, without the data of its state.
    public enum Phase: Sendable, Hashable {
        /// Only `hello` is allowed; the delegate does not know the connection.
        case awaitingHello
        /// `hello` was answered.
        case active
        /// A subscription is running.
        case subscribed
    }

    /// The connection's protocol state; each case carries what is known in it.
    public enum State: Sendable, Hashable {
        /// Accepted; only `hello` is allowed.
        case awaitingHello
        /// `hello` was answered (the delegate knows the connection); requests are delivered.
        case active
        /// A subscriber of one or more stores: a broadcast of store S with a seq above S's
        /// `afterSeq` reaches it, filtered by S's filter (see `StoreSubscriptions`).
        case subscribed(StoreSubscriptions)
        /// The server is stopping: no input is processed and no output accepted; what is queued
        /// is still written, then `.close(.shutdown)` follows. `from` is the phase it was in.
        case draining(from: Phase)
        /// `.close(reason)` was emitted; every further input is refused. `from` is the phase the
        /// connection was in when it began to close.
        case closing(CloseReason, from: Phase)

        /// A subscriber of the one unnamed store of a single-store server (key `""`).
        public static func subscribed(filter: BookFilter, afterSeq: UInt64) -> State {
            .subscribed(StoreSubscriptions([StoreSubscriptions.unnamed: .init(filter: filter, afterSeq: afterSeq)]))
        }

        /// The phase the connection is in, or was in when it began draining or closing.
        public var phase: Phase {
            switch self {
            case .awaitingHello: return .awaitingHello
            case .active: return .active
            case .subscribed: return .subscribed
            case .draining(let from), .closing(_, let from): return from
            }
        }

        /// True in `awaitingHello`, `active` and `subscribed`: requests and output are accepted.
        public var isLive: Bool {
            switch self {
            case .awaitingHello, .active, .subscribed: return true
            case .draining, .closing: return false
            }
        }
    }

    /// Why a connection is closed.
    public enum CloseReason: Sendable, Hashable {
        /// The client broke the protocol; the error line was queued first.
        case protocolViolation(ProtocolError.ErrorCode)
        /// No `hello` within the timeout.
        case helloTimeout
        /// Said hello, never subscribed, and nothing was sent or received for the idle timeout.
        case idleTimeout
        /// A subscriber did not read fast enough.
        case lagged
        /// The client closed its end.
        case peerClosed
        /// The server is stopping and the connection's output was written.
        case shutdown
        /// Reading or writing the socket failed with this errno.
        case ioError(Int32)
    }

    /// What the socket layer must do, in order.
    public enum Action: Sendable, Hashable {
        /// Append these bytes to the output queue (already counted in `queuedBytes`).
        case send([UInt8])
        /// Hand the request to the delegate.
        case deliver(Request)
        /// Answer `hello` with this id: build the reply with the current epoch and seq (see
        /// `helloReply`) and pass it to `enqueue(_:kind:)`.
        case answerHello(id: String)
        /// Stop reading requests (output over the limit).
        case pauseReading
        /// Resume reading requests.
        case resumeReading
        /// Write what can be written without blocking, then close. Always the last action.
        case close(CloseReason)
    }

    /// How queued output counts against the limit.
    public enum OutputKind: Sendable, Hashable {
        /// The one reply to a delivered request: always queued.
        case reply
        /// The one reply to a delivered request, an error: queued like `reply`, unless the
        /// client left more than an eighth of `queueLimit` of error replies unread: then it is
        /// not reading its replies while it keeps sending requests that fail (each error costs
        /// the daemon more than the request), and it is closed as lagged, like a subscriber that
        /// does not keep up.
        case failure
        /// Output that answers no delivered request (the hello reply, a snapshot or replayed
        /// changes, a shutdown notice): always queued.
        case unsolicited
        /// A broadcast event: may overflow the queue and close the connection as lagged.
        case event
    }
}

import BooksCore
import BooksProtocol

/// The protocol logic of one client connection, as a value type that performs no I/O: inputs go
/// in, `Action`s come out, and the socket layer carries them out in order. Unit-testable without
/// sockets.
///
/// States (`State`, each carrying its data): `awaitingHello` → (`hello` with the current version)
/// → `active` ⇄ `subscribed` (a filter and resume point per store, `StoreSubscriptions`); `beginShutdown` → `draining`; any → `closing`
/// after a protocol violation, a hello timeout, a lag overflow, end of input, a socket error, or
/// once a draining connection's output is written.
///
/// Beside the state, two modes whose cases carry their data (`ConnectionStateMachine+Modes`):
/// `output` is `direct`, or `streaming` a reply or snapshot with what arrives meanwhile held
/// behind it; `delivery` is `pipelining`, `holding` an exclusive request until the connection is
/// quiet, or `exclusive` while one is in flight. Held output without a running stream, or a held
/// exclusive request beside one in flight, cannot be written.
///
/// Closing: whenever the machine enters `closing(reason, from:)` it emits `.close(reason)` as the
/// LAST action of that call, exactly once; from then on every input returns no action. The socket
/// layer therefore learns that a connection closed from the actions alone.
///
/// Flow control: at most `maxPendingRequests` requests are delivered and unanswered at a time,
/// and none while the output exceeds `queueLimit`; further lines wait and reading pauses, so a
/// client that pipelines requests without reading replies cannot make the daemon buffer more
/// than about `queueLimit` plus one read's worth of lines. Requests whose reply can be large
/// (`isExclusive`: `list`/`query`, `get`, `status`, `subscribe`) are delivered one at a time:
/// only when nothing else is unanswered and the output is at most half of `queueLimit`, and
/// nothing after them is delivered until they are answered. So what one connection has queued
/// or in flight stays below `queueLimit / 2` plus one large reply plus `maxPendingRequests`
/// small ones (`ping`, writes and `unsubscribe` keep pipelining among themselves).
///
/// Half-close: after end of input, a connection still owed replies stays open (not reading)
/// until they are written, then closes.
///
/// Output accounting: every `.send` the machine emits has already been added to `queuedBytes`;
/// the socket layer reports written bytes with `drained(_:)`. Replies are always queued; while
/// the queue exceeds `queueLimit` the machine asks to pause reading (no new requests), and to
/// resume below half of it. Broadcast events that would make the queue exceed `queueLimit`
/// (not counting replies and initial events still queued) close the connection as lagged,
/// except that one event is always accepted when no broadcast bytes are pending (so a change
/// set larger than the limit reaches a subscriber that keeps up).
///
/// Error replies count against a budget of their own: a client that leaves more than an eighth
/// of `queueLimit` of them unread while it keeps sending requests that fail is sent a
/// `limit-exceeded` line and closed as lagged.
///
/// Shutdown: `beginShutdown` queues the shutdown notice for a subscriber, stops input and enters
/// `draining`; queued output is still written, and `.close(.shutdown)` follows once it is all
/// written (at once when nothing is queued).
public struct ConnectionStateMachine: Sendable {
    /// The current protocol state.
    public internal(set) var state: State = .awaitingHello
    /// The protocol version negotiated in `hello` (1 until then).
    public internal(set) var version = 1
    /// Bytes emitted and not yet drained.
    public internal(set) var queuedBytes = 0
    /// True while the socket layer must not read (back-pressure, half-close, draining, closing).
    public private(set) var isReadingPaused = false
    /// Requests delivered and not yet answered with a `.reply`.
    public internal(set) var pendingReplies = 0
    /// Whether a `subscribe` of this connection asked for `conflict` events (`"conflicts":true`).
    public internal(set) var wantsConflicts = false
    /// True after the client closed its sending side while answers were still due; the
    /// connection closes once they are all written.
    public private(set) var isInputClosed = false
    /// The output limit in bytes.
    public let queueLimit: Int
    /// Error replies queued and not yet written (see `OutputKind.failure`).
    var unreadErrors = UnreadErrors()
    /// The most bytes of error replies left unread before the connection is closed: an eighth
    /// of `queueLimit` (1 MiB by default, a thousand errors and more).
    var errorBudget: Int { max(queueLimit / 8, 1024) }
    /// The most requests delivered and not yet answered; further complete lines wait (and
    /// reading stops) until an answer is queued.
    public let maxPendingRequests: Int
    /// How output reaches the queue: directly, or behind a running stream (see `Output`).
    var output = Output.direct
    /// Which requests may be delivered: any, none until a held exclusive one can go, or none
    /// while an exclusive one is in flight (see `Delivery`).
    var delivery = Delivery.pipelining
    // Flow-control counters, independent of the modes above.
    /// Queued bytes that are not broadcast events (replies, notices, stream chunks).
    var exemptBytes = 0
    /// Set once `queuedBytes` exceeds `queueLimit`, cleared at half of it: no request is processed.
    var outputOverLimit = false
    var framer: LineFramer
    var backlog = Backlog()
    let decoder = RequestDecoder()
    /// The most bytes of a streamed reply or snapshot queued at once (see `startStream`).
    public let pageBudget: Int

    /// Creates the machine of a freshly accepted connection.
    public init(
        maxRequestBytes: Int = LineFramer.defaultMaxLineLength, queueLimit: Int = 8 << 20,
        maxPendingRequests: Int = 64, pageBudget: Int = 256 << 10
    ) {
        framer = LineFramer(maxLineLength: maxRequestBytes)
        self.pageBudget = max(1, pageBudget)
        self.queueLimit = queueLimit
        self.maxPendingRequests = max(1, maxPendingRequests)
    }

    /// Complete lines received but not yet processed (waiting for answers or output drain).
    public var backlogCount: Int { backlog.count + (delivery.held.isNone ? 0 : 1) }

    /// True once `hello` was answered: the delegate knows the connection and must hear that it
    /// closed. Stays true while draining and closing.
    public var isIntroduced: Bool { state.phase != .awaitingHello }

    /// True in `subscribed`.
    public var isSubscribed: Bool {
        if case .subscribed = state { return true }
        return false
    }

    /// True while input is still processed (live, and the client did not close its side).
    public var acceptsInput: Bool { state.isLive && !isInputClosed }

    /// The hello reply for `id`, stating the negotiated `version`.
    public static func helloReply(
        id: String, serverName: String, epoch: String, seq: UInt64, version: Int = ProtocolVersion.current
    ) -> Reply {
        .success(id, ReplyResult(protocolVersion: version, server: serverName, epoch: epoch, seq: seq))
    }

    // MARK: Inputs

    /// Bytes read from the socket.
    public mutating func bytesReceived(_ bytes: [UInt8]) -> [Action] {
        bytes.withUnsafeBytes { bytesReceived($0) }
    }

    /// Bytes read from the socket. Complete lines are processed in order while fewer than
    /// `maxPendingRequests` requests await answers and the output is under the limit; the rest
    /// wait in a backlog (bounded by what one read returns, since reading pauses meanwhile).
    public mutating func bytesReceived(_ bytes: UnsafeRawBufferPointer) -> [Action] {
        guard acceptsInput else { return [] }
        backlog.append(framer.feed(bytes))
        var actions: [Action] = []
        processBacklog(into: &actions)
        syncReading(into: &actions)
        return actions
    }

    /// The client closed its sending side (read returned 0). A subscriber, a draining
    /// connection, or a connection with nothing due, is closed at once; otherwise reading stops
    /// and the connection closes after the backlog is processed and every answer is written
    /// (half-close, as `nc -N` does).
    public mutating func endOfInput() -> [Action] {
        guard acceptsInput, !isSubscribed, !isIdle else { return close(.peerClosed) }
        isInputClosed = true
        var actions: [Action] = []
        syncReading(into: &actions)
        return actions
    }

    /// The peer hung up while the connection was not being read: nothing can be delivered.
    public mutating func peerHungUp() -> [Action] {
        close(.peerClosed)
    }

    /// Reading or writing the socket failed with `code` (e.g. `ECONNRESET`, `EPIPE`).
    public mutating func socketFailed(errno code: Int32) -> [Action] {
        close(.ioError(code))
    }

    /// The hello timer fired; closes the connection unless `hello` was completed.
    public mutating func helloTimeoutElapsed() -> [Action] {
        guard state == .awaitingHello else { return [] }
        let notice = emit(.failure(nil, ProtocolError(.helloRequired, "no hello within the timeout")))
        return [notice] + close(.helloTimeout)
    }

    /// Queues output that did not come from the machine itself (replies, events); refused (no
    /// action) unless live. `lagNotice` is queued (best effort) before closing a lagged
    /// subscriber. Queuing a `.reply` may release backlogged requests (`.deliver` actions after
    /// the `.send`).
    public mutating func enqueue(
        _ bytes: [UInt8], kind: OutputKind,
        lagNotice: () -> [UInt8] = { [] }
    ) -> [Action] {
        guard state.isLive else { return [] }
        if case .streaming = output { return holdBack(bytes, kind: kind, lagNotice: lagNotice) }
        switch kind {
        case .failure where unreadErrors.bytes + bytes.count > errorBudget:
            let notice = MessageEncoder.encode(
                Reply.failure(
                    nil,
                    ProtocolError(
                        .limitExceeded,
                        "\(unreadErrors.bytes) bytes of error replies unread (more than client_queue_bytes / 8) "
                            + "while requests keep failing: closing")))
            queuedBytes += notice.count
            return [.send(notice)] + close(.lagged)
        case .reply, .unsolicited, .failure:
            if kind == .failure {
                unreadErrors.queued(bytes.count, endingAt: unreadErrors.written + queuedBytes + bytes.count)
            }
            if kind != .unsolicited { answered() }
            exemptBytes += bytes.count
            queuedBytes += bytes.count
        case .event:
            // An event always fits into an empty broadcast queue: a single change set larger than
            // the limit must not disconnect a subscriber that keeps up.
            let pending = queuedBytes - exemptBytes
            if pending > 0 && pending + bytes.count > queueLimit {
                var actions: [Action] = []
                let notice = lagNotice()
                if !notice.isEmpty {
                    queuedBytes += notice.count
                    actions.append(.send(notice))
                }
                return actions + close(.lagged)
            }
            queuedBytes += bytes.count
        }
        if queuedBytes > queueLimit { outputOverLimit = true }
        var actions: [Action] = [.send(bytes)]
        processBacklog(into: &actions)
        syncReading(into: &actions)
        return actions
    }

    /// The fast path of `enqueue(_:kind: .event)` for a subscriber that has nothing queued: when
    /// nothing is queued, no line waits in the backlog and the event fits the limit, accounts
    /// `count` bytes as queued and returns true; the caller writes them itself (whatever the
    /// socket does not take goes to its output queue) and reports the written bytes with
    /// `drained(_:)`. Otherwise changes nothing and returns false (use `enqueue`). Accepting
    /// this way asks for no other action: `enqueue` would return just `.send`.
    public mutating func admitEvent(_ count: Int) -> Bool {
        guard isSubscribed, output.isDirect, queuedBytes == 0, backlogCount == 0, count <= queueLimit else {
            return false
        }
        queuedBytes = count
        return true
    }

    /// `count` queued bytes were written to the socket. May release backlogged requests, close a
    /// half-closed connection whose answers are all written, or close a draining connection
    /// whose output is all written.
    public mutating func drained(_ count: Int) -> [Action] {
        queuedBytes = max(0, queuedBytes - count)
        exemptBytes = max(0, exemptBytes - count)
        unreadErrors.drained(count)
        if outputOverLimit && queuedBytes <= queueLimit / 2 { outputOverLimit = false }
        switch state {
        case .closing: return []
        case .draining: return queuedBytes == 0 ? close(.shutdown) : []
        case .awaitingHello, .active, .subscribed: break
        }
        // The common case after a broadcast event was written: nothing streamed, held or
        // backlogged, input open and reading as it should be. The general path below would
        // return no action either; this skips its work (once per subscriber per change).
        if output.isDirect, delivery.held.isNone, backlog.isEmpty, !isInputClosed,
            isReadingPaused == !wantsInput
        {
            return []
        }
        var actions: [Action] = []
        pump(into: &actions)
        guard state.isLive else { return actions }
        processBacklog(into: &actions)
        if isInputClosed && isIdle { return actions + close(.peerClosed) }
        syncReading(into: &actions)
        return actions
    }

    /// The server is stopping: a subscriber gets `subscriberNotice` queued, input stops, and the
    /// machine enters `draining`; `.close(.shutdown)` follows once everything queued is written
    /// (returned at once when nothing is). No action unless live.
    public mutating func beginShutdown(subscriberNotice: [UInt8]) -> [Action] {
        guard state.isLive else { return [] }
        var actions: [Action] = []
        if !isReadingPaused { actions.append(.pauseReading) }
        isReadingPaused = true
        // A stream cut short: the rest is not sent, nor the notice after an unfinished line.
        let midLine = output.stream?.isMidLine == true
        output = .direct
        if isSubscribed && !midLine {
            queuedBytes += subscriberNotice.count
            exemptBytes += subscriberNotice.count
            actions.append(.send(subscriberNotice))
        }
        state = .draining(from: state.phase)
        backlog.removeAll()
        delivery = .pipelining
        return queuedBytes == 0 ? actions + close(.shutdown) : actions
    }

    // MARK: Internals

    /// Nothing received is unanswered and nothing is left to write.
    var isIdle: Bool { pendingReplies == 0 && queuedBytes == 0 && backlogCount == 0 && output.isDirect }

    private var wantsInput: Bool {
        acceptsInput && !outputOverLimit && output.isDirect && backlogCount == 0 && pendingReplies < maxPendingRequests
    }

    mutating func syncReading(into actions: inout [Action]) {
        guard state.isLive else {
            isReadingPaused = true  // the socket layer stops reading closing connections itself
            return
        }
        let pause = !wantsInput
        guard pause != isReadingPaused else { return }
        isReadingPaused = pause
        actions.append(pause ? .pauseReading : .resumeReading)
    }

    /// A delivered request was answered; the last answer ends an exclusive request's turn.
    mutating func answered() {
        pendingReplies = max(0, pendingReplies - 1)
        if pendingReplies == 0, case .exclusive = delivery { delivery = .pipelining }
    }

    /// Enters `closing(reason)` and returns `.close(reason)`, unless already closing.
    mutating func close(_ reason: CloseReason) -> [Action] {
        if case .closing = state { return [] }
        state = .closing(reason, from: state.phase)
        isReadingPaused = true
        output = .direct
        backlog.removeAll()
        delivery = .pipelining
        return [.close(reason)]
    }
}

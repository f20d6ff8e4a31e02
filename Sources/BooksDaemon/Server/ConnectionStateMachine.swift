import BooksProtocol

/// The protocol logic of one client connection, as a value type that performs no I/O: inputs go
/// in, `Action`s come out, and the socket layer carries them out in order. Unit-testable without
/// sockets.
///
/// States: `awaitingHello` → (`hello` with the current version) → `active` ⇄ `subscribed`;
/// any → `closing` after a protocol violation, a hello timeout, a lag overflow, end of input or
/// shutdown. In `closing` no further input is processed and no further output is accepted.
///
/// Flow control: at most `maxPendingRequests` requests are delivered and unanswered at a time,
/// and none while the output exceeds `queueLimit`; further lines wait and reading pauses, so a
/// client that pipelines requests without reading replies cannot make the daemon buffer more
/// than about `queueLimit` plus one read's worth of lines.
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
public struct ConnectionStateMachine: Sendable {
    /// The connection's protocol state.
    public enum State: Sendable, Hashable {
        case awaitingHello, active, subscribed, closing
    }

    /// Why a connection is closed.
    public enum CloseReason: Sendable, Hashable {
        /// The client broke the protocol; the error line was queued first.
        case protocolViolation(ProtocolError.ErrorCode)
        /// No `hello` within the timeout.
        case helloTimeout
        /// A subscriber did not read fast enough.
        case lagged
        /// The client closed its end.
        case peerClosed
        /// The server is stopping.
        case shutdown
        /// A socket error.
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
        /// Write what can be written without blocking, then close.
        case close(CloseReason)
    }

    /// How queued output counts against the limit.
    public enum OutputKind: Sendable, Hashable {
        /// The one reply to a delivered request: always queued.
        case reply
        /// Output that answers no delivered request (the hello reply, a snapshot or replayed
        /// changes, a shutdown notice): always queued.
        case unsolicited
        /// A broadcast event: may overflow the queue and close the connection as lagged.
        case event
    }

    /// The current protocol state.
    public private(set) var state: State = .awaitingHello
    /// Bytes emitted and not yet drained.
    public private(set) var queuedBytes = 0
    /// True while the socket layer was told to stop reading (back-pressure, half-close, closing).
    public private(set) var isReadingPaused = false
    /// The reason the machine entered `closing`, if it did.
    public private(set) var closeReason: CloseReason?
    /// Requests delivered and not yet answered with a `.reply`.
    public private(set) var pendingReplies = 0
    /// True after the client closed its sending side while answers were still due; the
    /// connection closes once they are all written.
    public private(set) var isInputClosed = false
    /// The output limit in bytes.
    public let queueLimit: Int
    /// The most requests delivered and not yet answered; further complete lines wait (and
    /// reading stops) until an answer is queued.
    public let maxPendingRequests: Int
    private var exemptBytes = 0
    private var outputOverLimit = false
    private var framer: LineFramer
    private var backlog: [LineFramer.Frame] = []
    private var backlogHead = 0
    private let decoder = RequestDecoder()

    /// Creates the machine of a freshly accepted connection.
    public init(maxRequestBytes: Int = LineFramer.defaultMaxLineLength, queueLimit: Int = 8 << 20,
                maxPendingRequests: Int = 64) {
        framer = LineFramer(maxLineLength: maxRequestBytes)
        self.queueLimit = queueLimit
        self.maxPendingRequests = max(1, maxPendingRequests)
    }

    /// Complete lines received but not yet processed (waiting for answers or output drain).
    public var backlogCount: Int { backlog.count - backlogHead }

    /// The hello reply for `id`.
    public static func helloReply(id: String, serverName: String, epoch: String, seq: UInt64) -> Reply {
        .success(id, ReplyResult(protocolVersion: ProtocolVersion.current, server: serverName, epoch: epoch, seq: seq))
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
        guard state != .closing, !isInputClosed else { return [] }
        backlog.append(contentsOf: framer.feed(bytes))
        var actions: [Action] = []
        processBacklog(into: &actions)
        syncReading(into: &actions)
        return actions
    }

    /// The client closed its sending side (read returned 0). A subscriber, or a connection with
    /// nothing due, is closed at once; otherwise reading stops and the connection closes after
    /// the backlog is processed and every answer is written (half-close, as `nc -N` does).
    public mutating func endOfInput() -> [Action] {
        guard state != .closing, !isInputClosed else { return close(.peerClosed) }
        if state == .subscribed || isIdle { return close(.peerClosed) }
        isInputClosed = true
        var actions: [Action] = []
        syncReading(into: &actions)
        return actions
    }

    /// The hello timer fired; closes the connection unless `hello` was completed.
    public mutating func helloTimeoutElapsed() -> [Action] {
        guard state == .awaitingHello else { return [] }
        var actions = [emit(.failure(nil, ProtocolError(.helloRequired, "no hello within the timeout")))]
        actions += close(.helloTimeout)
        backlog = []
        backlogHead = 0
        return actions
    }

    /// Queues output that did not come from the machine itself (replies, events).
    /// `lagNotice` is queued (best effort) before closing a lagged subscriber. Queuing a `.reply`
    /// may release backlogged requests (`.deliver` actions after the `.send`).
    public mutating func enqueue(_ bytes: [UInt8], kind: OutputKind,
                                 lagNotice: () -> [UInt8] = { [] }) -> [Action] {
        guard state != .closing else { return [] }
        switch kind {
        case .reply, .unsolicited:
            if kind == .reply { pendingReplies = max(0, pendingReplies - 1) }
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
        guard state == .subscribed, queuedBytes == 0, backlogHead == backlog.count, count <= queueLimit else { return false }
        queuedBytes = count
        return true
    }

    /// `count` queued bytes were written to the socket.
    public mutating func drained(_ count: Int) -> [Action] {
        queuedBytes = max(0, queuedBytes - count)
        exemptBytes = max(0, exemptBytes - count)
        if outputOverLimit && queuedBytes <= queueLimit / 2 { outputOverLimit = false }
        guard state != .closing else { return [] }
        var actions: [Action] = []
        processBacklog(into: &actions)
        if isInputClosed && isIdle { return actions + close(.peerClosed) }
        syncReading(into: &actions)
        return actions
    }

    /// The delegate started a subscription on this connection (`active` → `subscribed`).
    /// Returns false when the connection cannot subscribe (not active).
    public mutating func subscriptionStarted() -> Bool {
        guard state == .active || state == .subscribed else { return false }
        state = .subscribed
        return true
    }

    /// The subscription ended (`subscribed` → `active`).
    public mutating func subscriptionStopped() {
        if state == .subscribed { state = .active }
    }

    /// The server is stopping: no more input or output is accepted; flush and close.
    public mutating func beginShutdown() -> [Action] {
        guard state != .closing else { return [] }
        state = .closing
        closeReason = .shutdown
        backlog = []
        backlogHead = 0
        if isReadingPaused { return [] }
        isReadingPaused = true
        return [.pauseReading]
    }

    // MARK: Internals

    /// Nothing received is unanswered and nothing is left to write.
    private var isIdle: Bool { pendingReplies == 0 && queuedBytes == 0 && backlogCount == 0 }

    private var wantsInput: Bool {
        state != .closing && !isInputClosed && !outputOverLimit && backlogCount == 0
            && pendingReplies < maxPendingRequests
    }

    private mutating func syncReading(into actions: inout [Action]) {
        if state == .closing {
            isReadingPaused = true // the socket layer stops reading closing connections itself
            return
        }
        let pause = !wantsInput
        guard pause != isReadingPaused else { return }
        isReadingPaused = pause
        actions.append(pause ? .pauseReading : .resumeReading)
    }

    private mutating func processBacklog(into actions: inout [Action]) {
        while backlogHead < backlog.count, state != .closing, !outputOverLimit,
              pendingReplies < maxPendingRequests {
            let frame = backlog[backlogHead]
            backlogHead += 1
            switch frame {
            case .tooLong:
                violation(ProtocolError(.tooLarge, "request line longer than \(framer.maxLineLength) bytes"),
                          id: nil, into: &actions)
            case .line(let line):
                handle(line, into: &actions)
            }
        }
        if backlogHead == backlog.count || state == .closing {
            backlog.removeAll(keepingCapacity: backlog.count < 1024)
            backlogHead = 0
        }
    }

    private mutating func handle(_ line: [UInt8], into actions: inout [Action]) {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return } // blank lines are ignored
        let request: Request
        do {
            request = try decoder.decode(line)
        } catch {
            if state == .awaitingHello && !error.requiresDisconnect {
                violation(ProtocolError(.helloRequired, "the first request must be hello"), id: error.id, into: &actions)
            } else if error.requiresDisconnect {
                violation(error.error, id: error.id, into: &actions)
            } else {
                actions.append(emit(error.reply))
            }
            return
        }
        if request.op == .hello {
            guard request.version == ProtocolVersion.current else {
                let stated = request.version.map(String.init) ?? "none"
                violation(ProtocolError(.unsupportedVersion,
                                        "protocol version \(stated) is not supported; this server speaks \(ProtocolVersion.current)"),
                          id: request.id, into: &actions)
                return
            }
            if state == .awaitingHello { state = .active }
            actions.append(.answerHello(id: request.id))
            return
        }
        guard state != .awaitingHello else {
            violation(ProtocolError(.helloRequired, "the first request must be hello"), id: request.id, into: &actions)
            return
        }
        pendingReplies += 1
        actions.append(.deliver(request))
    }

    private mutating func violation(_ error: ProtocolError, id: String?, into actions: inout [Action]) {
        actions.append(emit(.failure(id, error)))
        actions += close(.protocolViolation(error.code))
    }

    private mutating func emit(_ reply: Reply) -> Action {
        let bytes = MessageEncoder.encode(reply)
        queuedBytes += bytes.count
        exemptBytes += bytes.count
        return .send(bytes)
    }

    private mutating func close(_ reason: CloseReason) -> [Action] {
        guard state != .closing || closeReason == .shutdown else { return [] }
        if state == .closing && closeReason == .shutdown && reason == .shutdown { return [] }
        state = .closing
        closeReason = reason
        return [.close(reason)]
    }
}

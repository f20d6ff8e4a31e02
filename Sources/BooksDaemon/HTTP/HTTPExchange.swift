import BooksHTTP
import BooksPlatform
import BooksProtocol
import CMicroHTTPD

/// A libmicrohttpd connection handle that other threads may hold.
///
/// `@unchecked Sendable` is safe: off the daemon's own thread the pointer is only passed to
/// `MHD_resume_connection`, which libmicrohttpd documents as callable from any thread at any time
/// for a suspended connection; `HTTPExchange` calls it only while the connection is suspended and
/// not completed (both tracked under its lock). Every other call happens on the daemon's thread.
struct MHDConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// One HTTP request from its head to its completion: the body read so far, the engine's answer
/// once it came, and for a change feed the client's `EventStream`. Shared by the daemon's thread
/// (callbacks) and the engine's queue (answers, broadcasts); all state is under one lock, and
/// `MHD_resume_connection` is called outside it.
final class HTTPExchange: Sendable {
    /// What the exchange waits for or holds.
    enum Phase: Sendable {
        /// Reading the body of `route`.
        case receiving(HTTPRoute, body: [UInt8], tooLarge: Bool)
        /// Suspended until the engine answers.
        case waiting(HTTPRoute)
        /// The answer, to queue when the daemon's thread calls back.
        case answered(Answer)
        /// The response was queued.
        case responding
    }

    /// What the engine answered.
    enum Answer: Sendable {
        case response(HTTPResponse)
        case list(HTTPListBody)
        case events(store: String)
    }

    struct State: Sendable {
        var phase: Phase
        var suspended = false
        var completed = false
        /// For a list: the body being streamed, and the bytes of its chunk not written yet.
        var list: HTTPListBody?
        var listPending: [UInt8] = []
        /// For a change feed: the client's stream.
        var events: EventStream?
        /// True when the connection is suspended because the feed had nothing to write.
        var parked = false
        var shuttingDown = false
    }

    /// The id its requests carry to the engine.
    let id: UInt64
    let connection: MHDConnectionHandle
    let state: Locked<State>

    init(id: UInt64, connection: MHDConnectionHandle, phase: Phase) {
        self.id = id
        self.connection = connection
        self.state = Locked(State(phase: phase))
    }

    /// Suspends the connection until `answer` (call on the daemon's thread, from the access handler).
    func suspend(waitingFor route: HTTPRoute) {
        state.withLock { state in
            state.phase = .waiting(route)
            state.suspended = true
            MHD_suspend_connection(connection.pointer)
        }
    }

    /// The route the exchange waits an answer for, or nil.
    var waitingRoute: HTTPRoute? {
        state.withLock { state in
            if case .waiting(let route) = state.phase { return route }
            return nil
        }
    }

    /// Hands over the engine's answer and resumes the connection (any thread). Ignored unless waiting.
    func answer(_ answer: Answer, events: EventStream? = nil) {
        let resume = state.withLock { state -> Bool in
            guard case .waiting = state.phase, !state.completed else { return false }
            state.phase = .answered(answer)
            if let events { state.events = events }
            let wasSuspended = state.suspended
            state.suspended = false
            return wasSuspended
        }
        if resume { MHD_resume_connection(connection.pointer) }
    }

    /// Offers `event` to the feed, resuming a parked connection (any thread).
    func offer(_ event: Event) {
        let resume = state.withLock { state -> Bool in
            guard !state.completed, state.events != nil else { return false }
            state.events!.offer(event)
            return unpark(&state)
        }
        if resume { MHD_resume_connection(connection.pointer) }
    }

    /// Gives a feed of several stores its stream before the answer (its stores start one by one).
    func prepare(_ events: EventStream) {
        state.withLock { $0.events = $0.events ?? events }
    }

    /// Changes the feed's stream (any thread), resuming a parked connection when it has bytes.
    func withEvents(_ body: (inout EventStream) -> Void) {
        let resume = state.withLock { state -> Bool in
            guard !state.completed, state.events != nil else { return false }
            body(&state.events!)
            return state.events!.pendingBytes > 0 || state.events!.isCutOff ? unpark(&state) : false
        }
        if resume { MHD_resume_connection(connection.pointer) }
    }

    /// Ends a parked feed or a wait at shutdown: the connection is resumed and its reader ends.
    func shutDown() {
        let resume = state.withLock { state -> Bool in
            state.shuttingDown = true
            guard !state.completed else { return false }
            if case .waiting = state.phase {
                state.phase = .answered(
                    .response(.error(503, code: "shutting-down", message: "booksd is stopping")))
                let wasSuspended = state.suspended
                state.suspended = false
                return wasSuspended
            }
            return unpark(&state)
        }
        if resume { MHD_resume_connection(connection.pointer) }
    }

    private func unpark(_ state: inout State) -> Bool {
        guard state.parked else { return false }
        state.parked = false
        state.suspended = false
        return true
    }

    /// The next bytes of the feed for the daemon's reader callback: bytes, 0 after parking (the
    /// connection is suspended until an offer), or an end.
    func readEvents(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        state.withLock { state -> Int in
            if state.shuttingDown { return booksd_mhd_end_of_stream() }
            guard var events = state.events else { return booksd_mhd_end_with_error() }
            let output = events.read(maxBytes: buffer.count)
            state.events = events
            switch output {
            case .bytes(let bytes):
                buffer.copyBytes(from: bytes)
                return bytes.count
            case .wait:
                state.parked = true
                state.suspended = true
                MHD_suspend_connection(connection.pointer)
                return 0
            case .cutOff:
                return booksd_mhd_end_with_error()
            }
        }
    }

    /// The next chunk of a streamed list for the daemon's reader callback.
    func readList(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        state.withLock { state -> Int in
            while state.listPending.isEmpty {
                guard var list = state.list, !list.isFinished else { return booksd_mhd_end_of_stream() }
                state.listPending = list.nextChunk(targetBytes: buffer.count)
                state.list = list
            }
            let count = min(buffer.count, state.listPending.count)
            buffer.copyBytes(from: state.listPending[0..<count])
            state.listPending.removeFirst(count)
            return count
        }
    }

    /// The answer to queue now (phase `answered` becomes `responding`), or nil.
    func takeAnswer() -> Answer? {
        state.withLock { state -> Answer? in
            guard case .answered(let answer) = state.phase else { return nil }
            state.phase = .responding
            if case .list(let body) = answer { state.list = body }
            return answer
        }
    }

    /// Appends body bytes (beyond `limit` only remembers that the body was too large).
    func receive(_ bytes: UnsafeRawBufferPointer, limit: Int) {
        state.withLock { state in
            guard case .receiving(let route, var body, let tooLarge) = state.phase else { return }
            if tooLarge || body.count + bytes.count > limit {
                state.phase = .receiving(route, body: [], tooLarge: true)
                return
            }
            state.phase = .receiving(route, body: [], tooLarge: false)  // no copy of `body` while appending
            body.append(contentsOf: bytes)
            state.phase = .receiving(route, body: body, tooLarge: false)
        }
    }

    /// The route and complete body of a request still receiving, or nil.
    var received: (route: HTTPRoute, body: [UInt8], tooLarge: Bool)? {
        state.withLock { state in
            if case .receiving(let route, let body, let tooLarge) = state.phase { return (route, body, tooLarge) }
            return nil
        }
    }

    /// Marks the request completed (the daemon's completion callback): nothing resumes it after.
    func complete() {
        state.withLock { $0.completed = true }
    }
}

import BooksCore
import BooksPlatform
import BooksProtocol
import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// One connected Unix stream socket speaking newline-delimited JSON.
///
/// Threading: a dedicated reader thread (`books-client`) owns all reads and closes the descriptor
/// when the stream ends; writers serialise on `writeLock`. Replies are matched to requests by id;
/// event lines go to the single installed event sink, in the order received. When the stream ends,
/// every pending request fails and the sink finishes — exactly once.
///
/// Lines are split by `LineFramer`: a line longer than `maxLineLength` ends the connection with
/// `.protocolError` (code `too-large`) as soon as it is known to be too long, so memory stays
/// bounded by about `maxLineLength` whatever the daemon sends.
final class SocketConnection: Sendable {
    /// Gets the reply to a request (on the reader thread, or where the connection ends).
    typealias ReplyHandler = @Sendable (Result<Reply, BooksClientError>) -> Void

    /// A change-feed consumer: `deliver` is called on the reader thread for each event, in order;
    /// `finish` once when the feed ends (nil: a normal end).
    ///
    /// A sink of one store (`store` set) gets only that store's events (and untagged ones), and
    /// its feed ends with `unknown-store` when the store is removed; a sink of several stores
    /// (`deliverStore` set) gets every event as a `StoreFeedItem`.
    struct EventSink: Sendable {
        let deliver: @Sendable (FeedItem) -> Void
        let finish: @Sendable (BooksClientError?) -> Void
        var sawShutdown = false
        /// The one store followed (version 2), or nil.
        var store: String?
        /// Receives every event of a feed over several stores.
        var deliverStore: (@Sendable (StoreFeedItem) -> Void)?

        init(deliver: @escaping @Sendable (FeedItem) -> Void, finish: @escaping @Sendable (BooksClientError?) -> Void) {
            self.deliver = deliver
            self.finish = finish
        }

        /// A sink feeding a `BooksFeed`.
        init(_ producer: BooksFeed<FeedItem>.Producer) {
            self.init(deliver: { producer.yield($0) }, finish: { producer.finish($0) })
        }
    }

    private struct State: Sendable {
        var pending: [String: ReplyHandler] = [:]
        var sink: EventSink?
        /// Set once the stream has ended; later requests fail with it at once.
        var endError: BooksClientError?
        /// Set by `close()`: the end is deliberate.
        var closing = false
        /// Receivers of paged replies by request id: each page's books, in order (see `send`).
        var pageSinks: [String: @Sendable ([Book]) -> Void] = [:]
        /// The subscribe request whose reply starts a feed without a snapshot (`.subscribed`).
        var plainSubscribeID: String?
        /// Books of a paged snapshot received so far (delivered as one `.snapshot` at its end).
        var snapshotPages: [Book] = []
    }

    /// The name of the reader thread (as `top -H` shows it).
    static let readerThreadName = "books-client"

    let path: String
    /// The longest line accepted from the daemon, in bytes.
    let maxLineLength: Int
    private let fd: Int32
    private let state = Locked(State())
    /// Guards writes and holds "fd is still writable". Writers hold it while sending; the reader
    /// takes it (inside `fdOpen`) to close `fd`. Lock order: `fdOpen` before `writeLock`.
    private let writeLock = Locked(true)
    /// True while `fd` is open. Guards `shutdown` (from `close()`) against the reader's `close(fd)`.
    private let fdOpen = Locked(true)

    private init(path: String, fd: Int32, maxLineLength: Int) {
        self.path = path
        self.fd = fd
        self.maxLineLength = maxLineLength
    }

    /// Connects to the Unix socket at `path` and starts the reader thread, which accepts lines of
    /// up to `maxLineLength` bytes (must be positive).
    static func open(path: String, maxLineLength: Int) throws(BooksClientError) -> SocketConnection {
        var address = sockaddr_un()
        let length = books_make_sockaddr_un(path, &address)
        guard length > 0 else { throw .socketPathTooLong(path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotConnect(path: path, errno: errno) }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(length)) }
        }
        if rc != 0 {
            let code = errno
            Glibc.close(fd)
            throw .cannotConnect(path: path, errno: code)
        }
        let connection = SocketConnection(path: path, fd: fd, maxLineLength: maxLineLength)
        do {
            // Not joined: `close()` must return at once (it runs in deinits and on the reader
            // thread itself); the handle detaches the thread when it is released.
            _ = try DedicatedThread.start(name: readerThreadName) { connection.readLoop() }
        } catch {
            Glibc.close(fd)
            throw .io(operation: "start thread \(error.name)", errno: error.code)
        }
        return connection
    }

    // MARK: Requests

    /// Sends `request` and waits for the reply with the same id.
    ///
    /// The line is written synchronously (small, bounded by the socket buffer); the wait is async.
    ///
    /// With `pages`, a paged reply (`"more":true` lines, then the last one) is handed to `pages`
    /// page by page on the reader thread, and the reply returned is the last line's (its books
    /// were given to `pages` too). `plainFeed` marks a `subscribe` without snapshot: its reply's
    /// position reaches the event sink as `.subscribed` before any event.
    func send(
        _ request: Request, pages: (@Sendable ([Book]) -> Void)? = nil, plainFeed: Bool = false
    ) async -> Result<Reply, BooksClientError> {
        await withCheckedContinuation { continuation in
            start(request, pages: pages, plainFeed: plainFeed) { continuation.resume(returning: $0) }
        }
    }

    /// Writes `request` now (before this returns: a request sent after it is written after it)
    /// and hands its reply to `then` when it comes (as `send` does).
    func start(
        _ request: Request, pages: (@Sendable ([Book]) -> Void)? = nil, plainFeed: Bool = false,
        then handler: @escaping ReplyHandler
    ) {
        let line: [UInt8]
        do {
            line = try RequestEncoder.encode(request)
        } catch {
            handler(.failure(.protocolError(ProtocolError(.badRequest, error.description))))
            return
        }
        let early: BooksClientError? = state.withLock { state in
            if let error = state.endError { return error }
            state.pending[request.id] = handler
            if let pages { state.pageSinks[request.id] = pages }
            if plainFeed { state.plainSubscribeID = request.id }
            return nil
        }
        if let early {
            handler(.failure(early))
            return
        }
        if let error = write(line) {
            let waiting = state.withLock { $0.pending.removeValue(forKey: request.id) }
            waiting?(.failure(error))
        }
    }

    /// Sends a line without waiting for its reply (the reply is discarded).
    func sendAndForget(_ request: Request) {
        guard let line = try? RequestEncoder.encode(request) else { return }
        _ = write(line)
    }

    private func write(_ bytes: [UInt8]) -> BooksClientError? {
        writeLock.withLock { writable -> BooksClientError? in
            guard writable else { return .connectionClosed }
            return bytes.withUnsafeBytes { raw -> BooksClientError? in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    if n < 0 {
                        if errno == EINTR { continue }
                        let code = errno
                        return code == EPIPE || code == ECONNRESET
                            ? .connectionClosed : .io(operation: "send", errno: code)
                    }
                    offset += n
                }
                return nil
            }
        }
    }

    // MARK: Events

    /// Installs the single change-feed consumer. Fails if one is installed or the stream has ended.
    func installSink(_ sink: EventSink) throws(BooksClientError) {
        let error: BooksClientError? = state.withLock { state in
            if let error = state.endError { return error }
            if state.sink != nil { return .alreadySubscribed }
            state.sink = sink
            return nil
        }
        if let error { throw error }
    }

    /// Removes the change-feed consumer (if any) and finishes it with `error` (or normally).
    func removeSink(finishing error: BooksClientError?) {
        let sink = state.withLock { $0.sink.take() }
        sink?.finish(error)
    }

    // MARK: Lifecycle

    /// Ends the connection: pending requests fail with `.closed`, an event sink finishes normally.
    /// Idempotent; returns at once (the reader thread completes the teardown).
    func close() {
        state.withLock { $0.closing = true }
        fdOpen.withLock { open in
            if open { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// True once the stream has ended.
    var isClosed: Bool { state.withLock { $0.endError != nil } }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var framer = LineFramer(maxLineLength: maxLineLength)
        let decoder = MessageDecoder()
        var endError: BooksClientError = .connectionClosed
        reading: while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                if code != ECONNRESET { endError = .io(operation: "read", errno: code) }
                break
            }
            let frames = buffer.withUnsafeBytes { framer.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            for frame in frames {
                do {
                    try handle(frame, decoder)
                } catch {
                    endError = error
                    break reading
                }
            }
        }
        fdOpen.withLock { open in
            writeLock.withLock { writable in
                Glibc.close(fd)
                writable = false
            }
            open = false
        }
        finish(endError)
    }

    /// Decodes and dispatches one frame; blank lines (spaces, tabs, a stray `\r`) are skipped.
    private func handle(_ frame: LineFramer.Frame, _ decoder: MessageDecoder) throws(BooksClientError) {
        switch frame {
        case .tooLong:
            throw .protocolError(
                ProtocolError(
                    .tooLarge,
                    "a line from booksd is longer than this client's limit of \(maxLineLength) bytes (maxLineLength)"))
        case .line(let line):
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
            let message: DaemonMessage
            do {
                message = try decoder.decode(line)
            } catch {
                throw .protocolError(ProtocolError(.badRequest, error.description))
            }
            try dispatch(message)
        }
    }

    private func dispatch(_ message: DaemonMessage) throws(BooksClientError) {
        switch message {
        case .reply(let reply):
            guard let id = reply.id else {
                throw .protocolError(reply.error ?? ProtocolError(.badRequest, "reply without id"))
            }
            let (pageSink, plain) = state.withLock { ($0.pageSinks[id], $0.plainSubscribeID == id) }
            if reply.ok, let pageSink {
                pageSink(reply.result?.books ?? [])
                if reply.result?.more == true { return }
            }
            if plain, reply.ok, let epoch = reply.result?.epoch, let seq = reply.result?.seq {
                let sink = state.withLock { $0.sink }
                sink?.deliver(.subscribed(ResumePoint(epoch: epoch, seq: seq)))
            }
            let waiting = state.withLock { state in
                state.pageSinks[id] = nil
                if state.plainSubscribeID == id { state.plainSubscribeID = nil }
                return state.pending.removeValue(forKey: id)
            }
            waiting?(
                reply.ok
                    ? .success(reply)
                    : .failure(.daemon(reply.error ?? ProtocolError(.internalError, "failure without error"))))
        case .event(var event):
            if event.event == .storeRemoved, let removed = event.store, endsSingleStoreFeed(removed, event) { return }
            let sink = state.withLock { state -> EventSink? in
                if event.event == .shutdown { state.sink?.sawShutdown = true }
                if event.event == .snapshot, event.more == true || !state.snapshotPages.isEmpty {
                    // A paged snapshot: gathered here, delivered whole after its last page.
                    state.snapshotPages += event.books ?? []
                    if event.more == true { return nil }
                    event.books = state.snapshotPages
                    event.more = nil
                    state.snapshotPages = []
                }
                return state.sink
            }
            guard let sink else { return }
            if let deliverStore = sink.deliverStore { return deliverStore(StoreFeedItem(event)) }
            if let store = event.store {
                // Another store's event, or a store event a single-store feed does not carry.
                if sink.store != nil && sink.store != store { return }
                if [.storeAdded, .storeRemoved, .subscribeFailed].contains(event.event) { return }
            }
            sink.deliver(FeedItem(event))
        }
    }

    /// Ends the feed of a sink that follows exactly `removed`; true when it did.
    private func endsSingleStoreFeed(_ removed: String, _ event: Event) -> Bool {
        let ends = state.withLock { $0.sink?.store == removed && $0.sink?.deliverStore == nil }
        guard ends else { return false }
        let reason = event.reason.map { ": \($0)" } ?? ""
        removeSink(finishing: .daemon(ProtocolError(.unknownStore, "store \"\(removed)\" was removed\(reason)")))
        return true
    }

    private func finish(_ error: BooksClientError) {
        let (pending, sink, closing) = state.withLock { state in
            let closing = state.closing
            state.endError = closing ? .closed : error
            defer {
                state.pending = [:]
                state.sink = nil
            }
            return (state.pending, state.sink, closing)
        }
        let reported: BooksClientError = closing ? .closed : error
        for handler in pending.values { handler(.failure(reported)) }
        if let sink {
            sink.finish(closing || (sink.sawShutdown && error == .connectionClosed) ? nil : reported)
        }
    }
}

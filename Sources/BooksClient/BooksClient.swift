import BooksCore
import BooksProtocol
import Synchronization

/// A connection to `booksd`: requests, replies and one change feed over a Unix socket.
///
/// Guarantees: every method sends exactly one request and returns its reply (requests from several
/// tasks may be in flight at once; replies are matched by id). A daemon error is thrown as
/// `BooksClientError.daemon` with its code; a lost connection fails every pending call with
/// `.connectionClosed`. The client is `Sendable`; the connection is closed by `close()` or when the
/// last reference goes away. It does not reconnect: use `ResilientSubscription`, `liveQuery` or
/// `LiveBookList` (an observable list) for that.
public final class BooksClient: BookRequests, Sendable {
    /// The default for the longest line accepted from the daemon: 1 GiB.
    ///
    /// A snapshot (and a `list` reply) is one line of roughly 100 bytes per book, so a
    /// 1,000,000-book file gives a line of about 100 MB; 1 GiB leaves room for about ten times
    /// that. The bound exists so that a runaway peer cannot make the client grow without limit.
    public static let defaultMaxLineLength = 1 << 30

    /// The socket path this client is connected to.
    public let socketPath: String
    /// The longest line accepted from the daemon, in bytes (see `connect`).
    public let maxLineLength: Int
    /// The daemon's name and version from `hello`, e.g. `booksd 1.0`.
    public let server: String?
    /// The daemon's position when the connection was made (nil if the daemon did not say).
    public let helloPoint: ResumePoint?
    /// The protocol version the connection speaks (2 with a daemon that names stores, 1 with an
    /// older one).
    public let protocolVersion: Int

    let connection: SocketConnection
    private let nextID: Atomic<UInt64>

    private init(
        socketPath: String, connection: SocketConnection, server: String?,
        helloPoint: ResumePoint?, nextID: UInt64, protocolVersion: Int
    ) {
        self.protocolVersion = protocolVersion
        self.socketPath = socketPath
        self.maxLineLength = connection.maxLineLength
        self.connection = connection
        self.server = server
        self.helloPoint = helloPoint
        self.nextID = Atomic(nextID)
    }

    deinit { connection.close() }

    /// Connects to the daemon's socket and performs the `hello` handshake.
    ///
    /// `maxLineLength` bounds every line read from the daemon (replies, snapshots, changes); a
    /// longer line ends the connection with `.protocolError` code `too-large` instead of being
    /// buffered. It must be positive.
    ///
    /// - Throws: `.cannotConnect(path, errno)` (with a hint on starting the daemon) when nothing
    ///   listens or access is denied; `.protocolError` when the daemon refuses the protocol version;
    ///   `.connectionClosed` when it hangs up during the handshake; `.io` when the reader thread
    ///   cannot be started.
    ///
    /// The client speaks protocol version 2 (named stores); a daemon that refuses it gets a second
    /// connection speaking version 1 (`protocolVersion` says which).
    public static func connect(
        socketPath: String, clientName: String = "booksctl",
        maxLineLength: Int = BooksClient.defaultMaxLineLength
    )
        async throws(BooksClientError) -> BooksClient
    {
        precondition(maxLineLength > 0, "maxLineLength must be positive")
        do {
            return try await connect(
                socketPath: socketPath, clientName: clientName, maxLineLength: maxLineLength,
                version: ProtocolVersion.current)
        } catch .protocolError(let error) where error.code == .unsupportedVersion {
            // A daemon older than named stores refuses version 2 (and hangs up): speak version 1.
            return try await connect(
                socketPath: socketPath, clientName: clientName, maxLineLength: maxLineLength,
                version: ProtocolVersion.supported.lowerBound)
        }
    }

    /// One connection attempt whose `hello` states `version`.
    private static func connect(
        socketPath: String, clientName: String, maxLineLength: Int, version requested: Int
    ) async throws(BooksClientError) -> BooksClient {
        let connection = try SocketConnection.open(path: socketPath, maxLineLength: maxLineLength)
        let hello = Request(id: "1", op: .hello, version: requested, client: clientName)
        switch await connection.send(hello) {
        case .success(let reply):
            let result = reply.result
            let version = result?.protocolVersion ?? 1
            guard ProtocolVersion.supported.contains(version) else {
                connection.close()
                throw .protocolError(
                    ProtocolError(
                        .unsupportedVersion,
                        "daemon speaks protocol version \(version), this client \(ProtocolVersion.supported)"))
            }
            var point: ResumePoint?
            if let epoch = result?.epoch, let seq = result?.seq { point = ResumePoint(epoch: epoch, seq: seq) }
            return BooksClient(
                socketPath: socketPath, connection: connection, server: result?.server,
                helloPoint: point, nextID: 2, protocolVersion: version)
        case .failure(let error):
            connection.close()
            if case .daemon(let protocolError) = error { throw .protocolError(protocolError) }
            throw error
        }
    }

    /// Closes the connection. Pending calls fail with `.closed`; an active change feed finishes
    /// normally. Idempotent.
    public func close() { connection.close() }

    /// True once the connection has ended (closed by either side).
    public var isClosed: Bool { connection.isClosed }

    // MARK: Paged requests

    /// The books matching `query`, handed to `onPage` a page at a time as they arrive (on the
    /// connection's reader thread, in order; it must not block for long), so that memory does not
    /// grow with the result. Returns the last page's position and `total` with no books (they
    /// all went to `onPage`). The daemon produces the pages from one state (`epoch`, `seq`).
    public func list(
        _ query: BookQuery, onPage: @escaping @Sendable ([Book]) -> Void
    ) async throws(BooksClientError) -> BookPage {
        try await list(query, store: nil, onPage: onPage)
    }

    /// `list(_:onPage:)` of `store` (nil: the daemon's only store, or `default` for version 1).
    func list(
        _ query: BookQuery, store: String?, at point: HistoryPoint? = nil,
        onPage: @escaping @Sendable ([Book]) -> Void
    ) async throws(BooksClientError) -> BookPage {
        var request = Request(id: makeID(), op: .list)
        request.store = store
        request.at = point.map(HistoryBound.init)
        request.setQuery(query)
        request.paged = true
        switch await connection.send(request, pages: onPage) {
        case .success(let reply):
            let result = reply.result ?? ReplyResult()
            return BookPage(books: [], total: result.total ?? 0, epoch: result.epoch, seq: result.seq ?? 0)
        case .failure(let error):
            throw error
        }
    }

    // MARK: Change feed

    /// Subscribes this connection to the change feed.
    ///
    /// The feed yields what the daemon pushes, in order (see `FeedItem`). It finishes normally
    /// after `close()` or after a `shutdown` event once the daemon hangs up; it throws
    /// `BooksClientError` when the subscribe request fails or the connection breaks. One feed per
    /// connection: a second call while one is active throws `.alreadySubscribed`. Ending the
    /// iteration (cancel, drop) unsubscribes. This feed does not reconnect. Keep the client alive
    /// while iterating: releasing it closes the connection (the feed then finishes).
    ///
    /// Buffering follows `buffer` (default: 4,096 items; see `FeedBufferPolicy`): a consumer
    /// that falls further behind gets the buffered items, then `.consumerTooSlow`, and the
    /// connection unsubscribes (resume with `from:` the last seq seen, on a new connection).
    ///
    /// With `snapshot: false` the feed carries no snapshot, ever: it starts with `.subscribed` (the
    /// position it starts from) or the replayed changes, and after `resyncRequired` no snapshot
    /// follows (a plain feed: constant memory, whatever the number of books).
    ///
    /// With `conflicts: true` the feed also carries `.conflict` items: a merged save's conflicts
    /// as the daemon records and settles them (see ``ConflictNotice``; ``BookRequests/conflicts()``
    /// lists those unsettled, ``BookRequests/resolve(_:take:)`` settles one).
    public func changes(
        filter: BookFilter = .all, from resume: ResumePoint? = nil, snapshot: Bool = true,
        conflicts: Bool = false, buffer: FeedBufferPolicy = .default
    ) -> BooksFeed<FeedItem> {
        let (feed, producer): (BooksFeed<FeedItem>, _) = unsubscribingFeed(buffer: buffer)
        subscribe(
            filter: filter, from: resume, snapshot: snapshot, store: nil, conflicts: conflicts,
            sink: SocketConnection.EventSink(producer))
        return feed
    }

    /// A feed buffered per `buffer` whose end (cancel, drop) detaches it from the connection and
    /// sends `unsubscribe` (of `stores`, for a multi-store feed).
    func unsubscribingFeed<Item: Sendable>(
        buffer: FeedBufferPolicy, stores: [String]? = nil
    ) -> (BooksFeed<Item>, BooksFeed<Item>.Producer) {
        let connection = self.connection
        let unsubscribeID = makeID()
        return BooksFeed<Item>.make(policy: buffer) {
            connection.removeSink(finishing: nil)
            connection.sendAndForget(Request(id: unsubscribeID, op: .unsubscribe, stores: stores))
        }
    }

    /// The change feed without a stream: `deliver` runs on the connection's reader thread for
    /// each item, in order (it must not block), and `finish` once when the feed ends (nil when it
    /// ended normally: the connection was closed or the daemon shut down). Saves the hop to
    /// another thread per item that a stream costs; `ResilientSubscription` uses it.
    func subscribe(
        filter: BookFilter, from resume: ResumePoint?, snapshot: Bool = true, store: String? = nil,
        conflicts: Bool = false,
        deliver: @escaping @Sendable (FeedItem) -> Void, finish: @escaping @Sendable (BooksClientError?) -> Void
    ) {
        subscribe(
            filter: filter, from: resume, snapshot: snapshot, store: store, conflicts: conflicts,
            sink: SocketConnection.EventSink(deliver: deliver, finish: finish))
    }

    func subscribe(
        filter: BookFilter, from resume: ResumePoint?, snapshot: Bool, store: String?, conflicts: Bool = false,
        sink: SocketConnection.EventSink
    ) {
        var sink = sink
        sink.store = store
        do {
            try connection.installSink(sink)
        } catch {
            sink.finish(error)
            return
        }
        let connection = self.connection
        // Snapshots come in pages (the reader gathers them), so no line is as large as the file.
        var request = Request(
            id: makeID(), op: .subscribe, filter: filter.isEmpty ? nil : filter, resume: resume, paged: true,
            snapshot: snapshot ? nil : false, store: store)
        if conflicts { request.conflicts = true }
        // Written before this returns: a write the caller sends next comes after it, so its
        // change reaches the feed.
        connection.start(request, plainFeed: !snapshot) { result in
            if case .failure(let error) = result { connection.removeSink(finishing: error) }
        }
    }

    /// A live query that survives daemon restarts: the books matching `query`, emitted once at
    /// start and again after each change that alters the result (and only then).
    ///
    /// Uses its own connections to `socketPath`, with this client's `maxLineLength` (see
    /// `ResilientSubscription.liveQuery`). Only the latest result waits for a slow consumer
    /// (`FeedBufferPolicy.latest`).
    public func liveQuery(_ query: BookQuery) -> BooksFeed<[Book]> {
        ResilientSubscription.liveQuery(socketPath: socketPath, query: query, maxLineLength: maxLineLength)
    }

    // MARK: Plumbing

    func makeID() -> String {
        String(nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// Sends one request over the socket and returns its result (see `BookRequests`).
    public func call(
        _ op: Request.Operation, _ configure: (inout Request) -> Void = { _ in }
    )
        async throws(BooksClientError) -> ReplyResult
    {
        var request = Request(id: makeID(), op: op)
        configure(&request)
        switch await connection.send(request) {
        case .success(let reply): return reply.result ?? ReplyResult()
        case .failure(let error): throw error
        }
    }

}

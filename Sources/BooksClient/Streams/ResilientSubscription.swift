import BooksCore
import BooksPlatform
import BooksProtocol

/// A change feed that survives daemon restarts, crashes and disconnects.
///
/// Two kinds: with `mirror: false` (and `initial: false`) a plain feed (`PlainFeedState`: the
/// position only, constant memory; a gap the daemon cannot replay is reported as one
/// `.resyncRequired` update). Otherwise it keeps a `MirrorState` (the matching books and the last
/// epoch/seq; memory grows with the books matching the filter). When the connection ends it
/// reconnects with back-off (100 ms doubling to 2 s by default) and subscribes with
/// `resume: {epoch, seq}`; replayed changes already seen are skipped, and after `resync-required`
/// the new snapshot is diffed against the mirror so that exactly the missed changes are reported.
/// Across any number of reconnections a consumer misses nothing and sees nothing twice.
///
/// The stream ends only when the consumer stops iterating (cancellation), or with an error that
/// reconnecting cannot fix (e.g. the daemon rejects the filter or the protocol version). If the
/// first connection fails and `waitForDaemon` is false, that error is thrown at once.
public struct ResilientSubscription: Sendable {
    /// The daemon's socket.
    public var socketPath: String
    /// Which books to follow (sent to the daemon and applied locally).
    public var filter: BookFilter
    /// Report the first snapshot as inserts (otherwise it only seeds the mirror). Implies `mirror`.
    public var initial: Bool
    /// Keep a mirror of the matching books, so that missed changes can be reported exactly after a
    /// resync. Without it (and without `initial`) the feed holds no books at all.
    public var mirror: Bool
    /// Delays between reconnection attempts.
    public var backoff: ReconnectBackoff
    /// Keep retrying when the daemon is not reachable at start.
    public var waitForDaemon: Bool
    /// The client name sent in `hello`.
    public var clientName: String
    /// The longest line accepted from the daemon, in bytes (see `BooksClient.connect`). A longer
    /// line ends the subscription with `.protocolError` code `too-large` (not retried: the next
    /// snapshot would be as long).
    public var maxLineLength: Int
    /// Where a plain feed starts (a saved cursor: the last epoch/seq seen); nil: the daemon's current
    /// position. Ignored with `mirror` (a mirror needs a snapshot first).
    public var resumeFrom: ResumePoint?
    /// Called on connection events (from the subscription's task, or its connection's reader thread).
    public var onStatus: (@Sendable (SubscriptionStatus) -> Void)?
    /// The store to follow (protocol version 2); nil: the daemon's only store (or `default`).
    public var store: String?
    /// When set, the feed asks for conflicts (`conflicts: true`) and each ``ConflictNotice`` is
    /// handed here, on the connection's reader thread, in order with the updates.
    public var onConflict: (@Sendable (ConflictNotice) -> Void)?

    /// Creates a subscription description; nothing happens until `updates()` is iterated.
    public init(
        socketPath: String, filter: BookFilter = .all, initial: Bool = false, mirror: Bool = true,
        backoff: ReconnectBackoff = ReconnectBackoff(), waitForDaemon: Bool = false,
        clientName: String = "booksctl", maxLineLength: Int = BooksClient.defaultMaxLineLength,
        onStatus: (@Sendable (SubscriptionStatus) -> Void)? = nil
    ) {
        self.socketPath = socketPath
        self.filter = filter
        self.initial = initial
        self.mirror = mirror || initial
        self.backoff = backoff
        self.waitForDaemon = waitForDaemon
        self.clientName = clientName
        self.maxLineLength = maxLineLength
        self.onStatus = onStatus
    }

    /// The mirror's changes, in order, across reconnections (see `MirrorState` for the guarantees).
    ///
    /// Buffered per `buffer` (see `FeedBufferPolicy`; default 4,096 updates): a consumer that
    /// falls further behind gets the buffered updates, then `.consumerTooSlow`.
    public func updates(buffer: FeedBufferPolicy = .default) -> BooksFeed<MirrorUpdate> {
        guard mirror else {
            return run(
                initialState: PlainFeedState(resumingAt: resumeFrom), resumePoint: { $0.resumePoint },
                step: { $0.apply($1) }, buffer: buffer)
        }
        return run(
            initialState: MirrorState(filter: filter, emitInitialSnapshot: initial),
            resumePoint: { $0.resumePoint },
            step: { state, item in state.apply(item) }, buffer: buffer)
    }

    /// Calls `body` with each update of `updates()`, in order, on the connection's reader thread,
    /// and returns when the subscription ends (throwing the `BooksClientError` that `updates()`
    /// would throw; cancelling the calling task ends it normally). No hop to another thread per
    /// update: the lowest latency, for consumers that only hand the update on (`booksctl subscribe`
    /// writes it to stdout). `body` must not block for long: it holds up the reading of the feed.
    public func forEachUpdate(_ body: @escaping @Sendable (MirrorUpdate) -> Void) async throws(BooksClientError) {
        let (ends, end) = AsyncStream<BooksClientError?>.makeStream()
        let finish: @Sendable (BooksClientError?) -> Void = { error in
            end.yield(error)
            end.finish()
        }
        let task =
            mirror
            ? drive(
                initialState: MirrorState(filter: filter, emitInitialSnapshot: initial),
                resumePoint: { $0.resumePoint }, step: { state, item in state.apply(item) }, emit: body,
                finish: finish)
            : drive(
                initialState: PlainFeedState(resumingAt: resumeFrom), resumePoint: { $0.resumePoint },
                step: { $0.apply($1) }, emit: body, finish: finish)
        let failure = await withTaskCancellationHandler {
            var failure: BooksClientError?
            for await error in ends { failure = error }
            return failure
        } onCancel: {
            task.cancel()
        }
        if let failure { throw failure }
    }

    /// A resilient live query: the books matching `query`, emitted once at start and again after
    /// each change that alters the result, and only then. Buffering keeps only the latest result
    /// (`FeedBufferPolicy.latest`): a slow consumer skips to the current one.
    public static func liveQuery(
        socketPath: String, query: BookQuery, clientName: String = "booksctl",
        waitForDaemon: Bool = false,
        maxLineLength: Int = BooksClient.defaultMaxLineLength
    )
        -> BooksFeed<[Book]>
    {
        let subscription = ResilientSubscription(
            socketPath: socketPath, filter: query.filter,
            waitForDaemon: waitForDaemon, clientName: clientName,
            maxLineLength: maxLineLength)
        return subscription.run(
            initialState: LiveQueryState(query: query),
            resumePoint: { $0.mirror.resumePoint },
            step: { state, item in state.apply(item) }, buffer: .latest)
    }

    /// One connection to the daemon, with this subscription's client name and line limit.
    func connectClient() async throws(BooksClientError) -> BooksClient {
        try await BooksClient.connect(socketPath: socketPath, clientName: clientName, maxLineLength: maxLineLength)
    }

    /// Drives a feed state machine across connections.
    ///
    /// Items are applied to the state on the connection's reader thread as they arrive (one hop
    /// to the consumer per output instead of two); the task only connects, waits for the feed's
    /// end and reconnects.
    func run<State: Sendable, Output: Sendable>(
        initialState: State,
        resumePoint: @escaping @Sendable (State) -> ResumePoint?,
        step: @escaping @Sendable (inout State, FeedItem) -> Output?,
        buffer: FeedBufferPolicy
    ) -> BooksFeed<Output> {
        // The feed may end (consumer gone) before `drive` returns its task: remember that.
        let started = Locked<(task: Task<Void, Never>?, ended: Bool)>((nil, false))
        let (feed, producer) = BooksFeed<Output>.make(policy: buffer) {
            started.withLock {
                $0.ended = true
                $0.task?.cancel()
            }
        }
        let task = drive(
            initialState: initialState, resumePoint: resumePoint, step: step,
            emit: { producer.yield($0) }, finish: { producer.finish($0) })
        started.withLock {
            $0.task = task
            if $0.ended { task.cancel() }
        }
        return feed
    }

    /// The connection loop behind `run` and `forEachUpdate`: `emit` gets each output on the
    /// reader thread, `finish` is called once at the end (nil: ended by cancellation).
    func drive<State: Sendable, Output: Sendable>(
        initialState: State,
        resumePoint: @escaping @Sendable (State) -> ResumePoint?,
        step: @escaping @Sendable (inout State, FeedItem) -> Output?,
        emit: @escaping @Sendable (Output) -> Void,
        finish: @escaping @Sendable (BooksClientError?) -> Void
    ) -> Task<Void, Never> {
        let config = self
        let progress = FeedProgress(state: initialState)
        return Task {
            var failures = 0
            var everConnected = false
            while !Task.isCancelled {
                var reason = "connection closed"
                do throws(BooksClientError) {
                    let client = try await config.connectClient()
                    defer { client.close() }
                    everConnected = true
                    let resume = progress.withLock { $0.startConnection(resumePoint) }
                    let (ends, end) = AsyncStream<BooksClientError?>.makeStream()
                    client.subscribe(
                        filter: config.filter, from: resume, snapshot: config.mirror, store: config.store,
                        conflicts: config.onConflict != nil,
                        deliver: { item in
                            if case .conflict(let notice) = item { config.onConflict?(notice) }
                            let (output, firstItem) = progress.withLock { $0.apply(item, step) }
                            if firstItem { config.onStatus?(.subscribed(resumed: resume != nil)) }
                            if case .resyncRequired(_, _, let why) = item {
                                config.onStatus?(.resyncRequired(reason: why))
                            }
                            if let output { emit(output) }
                        },
                        finish: { error in
                            end.yield(error)
                            end.finish()
                        })
                    var ended: BooksClientError?
                    for await error in ends { ended = error }
                    let (announced, shutdownReason) = progress.withLock { ($0.announced, $0.shutdownReason) }
                    if announced { failures = 0 }
                    if let shutdownReason { reason = shutdownReason }
                    if let ended { throw ended }
                } catch {
                    if !error.isTransient || (!everConnected && !config.waitForDaemon) {
                        finish(error)
                        return
                    }
                    reason = error.description
                }
                if Task.isCancelled { break }
                let delay = config.backoff.delay(attempt: failures)
                failures += 1
                config.onStatus?(.disconnected(reason: reason, retryIn: delay))
                do { try await Task.sleep(for: delay) } catch { break }
            }
            finish(nil)
        }
    }
}

/// A feed state machine's state and what the current connection has seen, shared by the reader
/// thread (which applies items) and the subscription's task (which reconnects).
final class FeedProgress<State: Sendable>: Sendable {
    struct Value: Sendable {
        var state: State
        /// An item arrived on the current connection.
        var announced = false
        /// The daemon announced its shutdown on the current connection.
        var shutdownReason: String?

        /// Resets the per-connection flags; returns where to resume.
        mutating func startConnection(_ resumePoint: (State) -> ResumePoint?) -> ResumePoint? {
            announced = false
            shutdownReason = nil
            return resumePoint(state)
        }

        /// Applies `item`; returns the output and whether it was the connection's first item.
        mutating func apply<Output>(_ item: FeedItem, _ step: (inout State, FeedItem) -> Output?) -> (Output?, Bool) {
            let first = !announced
            announced = true
            if case .shutdown(let why) = item { shutdownReason = "daemon shut down" + (why.map { ": \($0)" } ?? "") }
            return (step(&state, item), first)
        }
    }

    private let value: Locked<Value>

    init(state: State) { value = Locked(Value(state: state)) }

    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
}

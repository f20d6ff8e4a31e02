import BooksCore
import BooksPlatform
import BooksProtocol
import Glibc

/// The daemon's Unix-socket server: newline-delimited JSON requests in, replies and change-feed
/// events out.
///
/// Threading: all socket I/O runs on one `DedicatedThread`, "booksd-server" (blocking
/// `epoll_wait`, never the cooperative pool); large broadcasts borrow a second one,
/// "booksd-sender", for the `send` calls. Every public method is thread-safe; methods that act
/// on connections post a command that the server thread applies, in posting order (FIFO across
/// all commands and all posting threads). Encoding of replies and initial events happens on the posting thread;
/// broadcasts are encoded on the server thread once per distinct subscriber filter.
///
/// Back-pressure: the server never blocks on a client. Output is queued per connection; a client
/// whose queued replies exceed `clientQueueBytes` is not read until it drains, and a subscriber
/// whose queue would exceed it with a broadcast gets `resync-required` (`reason: "lagged"`, best
/// effort) and is disconnected.
///
/// Stopping: `stopAccepting()`, then `deliverPendingInput(timeout:)` (every request already sent
/// reaches the delegate), let the delegate answer, then `shutdown(reason:timeout:)`.
public final class SocketServer: Sendable {
    /// The configuration the server was created with.
    public let configuration: SocketServerConfiguration

    private struct ThreadState {
        var started = false
        var stopped = false
        var thread: DedicatedThread?
    }

    private struct Listener {
        var fd: Int32
        /// The path this server bound itself (and therefore unlinks); nil for an inherited socket.
        var ownedPath: String?
    }

    private let channel: CommandChannel
    private let listener: Locked<Listener>
    private let threadState = Locked(ThreadState())
    private let stats = Locked(ServerStatistics())

    /// Binds `configuration.path` (replacing a stale socket file, never a live one; chmod to
    /// `socketMode`), or adopts `inheritedListeningFD` (socket activation; that path is never
    /// unlinked). Does not accept connections before `start`.
    public init(configuration: SocketServerConfiguration, inheritedListeningFD: Int32? = nil) throws(SocketServerError)
    {
        self.configuration = configuration
        let fd: Int32
        var owned: String?
        if let inherited = inheritedListeningFD {
            fd = try UnixListener.adopt(inherited)
        } else if let path = configuration.path {
            fd = try UnixListener.bind(path: path, mode: configuration.socketMode)
            owned = path
        } else {
            throw .noAddress
        }
        do {
            channel = try CommandChannel()
        } catch {
            Glibc.close(fd)
            if let owned { _ = unlink(owned) }
            throw error
        }
        listener = Locked(Listener(fd: fd, ownedPath: owned))
    }

    deinit {
        closeListener()
        _ = channel.close()
    }

    /// Starts the server thread and begins accepting connections. Raises the soft
    /// `RLIMIT_NOFILE` to the hard limit and ignores `SIGPIPE` process-wide (writes also use
    /// `MSG_NOSIGNAL`). Throws `alreadyStarted` on a second call or after `shutdown`.
    public func start(delegate: any SocketServerDelegate) throws(SocketServerError) {
        // Everything happens under the thread-state lock, so a concurrent `shutdown` sees either
        // no thread (and closes the listener itself) or a running one (and posts to it).
        try threadState.withLock { (s: inout ThreadState) throws(SocketServerError) -> Void in
            guard !s.started, !s.stopped else { throw .alreadyStarted }
            s.started = true
            let fd = listener.withLock { $0.fd }
            UnixListener.raiseDescriptorLimit()
            _ = signal(SIGPIPE, SIG_IGN)
            let loop = try ServerLoop(
                server: self, delegate: delegate, configuration: configuration,
                channel: channel, listenFD: fd)
            do throws(DedicatedThreadError) {
                s.thread = try DedicatedThread.start(name: "booksd-server") { loop.run() }
            } catch {
                throw .threadStartFailed(error)
            }
        }
    }

    /// Queues `reply` for `connection` (ignored if the connection is gone). Never blocks.
    public func send(_ reply: Reply, to connection: ConnectionID) {
        channel.post(.send(connection, MessageEncoder.encode(reply), failure: !reply.ok))
    }

    /// Makes `connection` a subscriber with `filter`: first writes `reply`, then `initialEvents`
    /// (snapshot or replayed changes, already filtered by the caller), then every later
    /// `broadcast` whose seq is greater than `afterSeq`, filtered by `filter` (empty filtered
    /// change sets are skipped). Calling it again replaces the filter. Ignored if the connection
    /// is gone. Encoding happens on the calling thread.
    ///
    /// For a gapless feed, post this before any `broadcast` with a seq above `afterSeq` (e.g. take
    /// the snapshot and call this under the lock that also orders your broadcasts): commands are
    /// applied in posting order, and broadcasts at or below `afterSeq` are skipped for it.
    public func startSubscription(
        _ connection: ConnectionID, reply: Reply, filter: BookFilter,
        initialEvents: [Event], afterSeq: UInt64
    ) {
        channel.post(
            .startSubscription(
                connection, store: StoreSubscriptions.unnamed, reply: MessageEncoder.encode(reply), replyKind: .reply,
                filter: filter, initialEvents: initialEvents.map(MessageEncoder.encode), afterSeq: afterSeq))
    }

    /// Writes the list reply or snapshot `books` to `connection` after what was queued for it
    /// before, encoding a page only while the connection's queued output is under the page
    /// budget (`SocketServerConfiguration.pageBudgetBytes`). Ignored if the connection is gone.
    public func stream(_ books: BookStreamEncoder, to connection: ConnectionID) {
        channel.post(.stream(connection, books))
    }

    /// Ends `connection`'s subscription (if any) and writes `reply`.
    public func stopSubscription(_ connection: ConnectionID, reply: Reply) {
        channel.post(.stopSubscription(connection, store: nil, reply: MessageEncoder.encode(reply)))
    }

    /// Sends `change` to every subscriber whose `afterSeq` is below `change.seq`, filtered by its
    /// filter, encoding it once per distinct filter. Never blocks; a subscriber whose queue would
    /// exceed `clientQueueBytes` gets `resync-required` ("lagged", best effort) and is disconnected.
    public func broadcast(_ change: SequencedChangeSet) {
        channel.post(.broadcast(change, store: StoreSubscriptions.unnamed))
    }

    /// Sends a `heartbeat` event to every subscriber (same queueing rules as `broadcast`).
    public func broadcastHeartbeat(epoch: String, seq: UInt64) {
        channel.post(.heartbeat(epoch: epoch, seq: seq, store: StoreSubscriptions.unnamed))
    }

    /// Sends a `conflict` event to every subscriber that asked for them (same queueing rules as
    /// `broadcast`).
    public func broadcastConflict(_ event: Event) {
        channel.post(.conflict(event, store: StoreSubscriptions.unnamed))
    }

    /// Stops accepting connections: the server thread first accepts every connection already
    /// waiting in the listen backlog (they are served like the others), then closes the
    /// listening socket and unlinks the path if this server bound it, so later clients are
    /// refused. Existing connections are unaffected. Never blocks; applied in posting order with
    /// the other commands. Idempotent.
    public func stopAccepting() {
        channel.post(.stopAccepting)
    }

    /// Blocks until every request whose bytes were already in a connection's socket buffer when
    /// this was called (including connections still waiting to be accepted) has been read and
    /// handed to the delegate (`server(_:didReceive:from:peer:)`), or until `timeout` passed.
    ///
    /// Flow control still applies: a connection with `maxPendingRequests` unanswered requests
    /// is read further only as the delegate answers, so the delegate must keep answering from
    /// another thread meanwhile. A trailing incomplete line is not waited for; connections that
    /// close or stop taking input count as done. Returns true when everything was handed over;
    /// false on timeout, when the server is not running, or when called from the server thread
    /// (e.g. from a delegate callback), which would otherwise deadlock.
    @discardableResult
    public func deliverPendingInput(timeout: Duration) -> Bool {
        guard let thread = threadState.withLock({ $0.thread }), !thread.isCurrent else { return false }
        let barrier = PendingInputBarrier()
        let deadline = ContinuousClock().now + timeout
        guard channel.post(.deliverPendingInput(barrier, deadline: deadline)) else { return false }
        return barrier.wait(timeout: timeout)
    }

    /// Stops the server: stops accepting, sends a `shutdown` event with `reason` to subscribers,
    /// flushes pending output for at most `timeout`, closes every connection and the listening
    /// socket, unlinks the socket path only if this server bound it, and waits for the server
    /// thread to end (unless called from the server thread itself, e.g. from a delegate
    /// callback). Idempotent.
    public func shutdown(reason: String, timeout: Duration) {
        let (thread, alreadyStopped) = threadState.withLock { s -> (DedicatedThread?, Bool) in
            let was = s.stopped
            s.stopped = true
            return (s.thread, was)
        }
        guard !alreadyStopped else { return }
        guard let thread else {
            closeListener()
            _ = channel.close()
            return
        }
        channel.post(.shutdown(reason: reason, deadline: ContinuousClock().now + timeout))
        thread.join()  // from the server thread itself (a delegate callback): detaches instead
    }

    /// Runs `body` on the server thread once every command posted before it has been applied.
    /// The watchdog uses it to prove the epoll loop is alive; the reconciler, to read statistics
    /// that reflect a subscription it just posted. Returns false (and never runs `body`) once the
    /// server is shut down. Must not block.
    @discardableResult
    public func afterPendingCommands(_ body: @escaping @Sendable () -> Void) -> Bool {
        channel.post(.run(body))
    }

    /// Current counters (thread-safe snapshot).
    public var statistics: ServerStatistics { stats.withLock { $0 } }

    // MARK: Server-thread helpers

    /// Posts `command` to the server thread (see `StoreChannel`); false once the server is shut down.
    @discardableResult
    func post(_ command: ServerCommand) -> Bool {
        channel.post(command)
    }

    func updateStatistics(_ body: (inout ServerStatistics) -> Void) {
        stats.withLock { body(&$0) }
    }

    /// Runs `body` on the listening fd and owned path under the listener lock.
    func withListener(_ body: (inout Int32, inout String?) -> Void) {
        listener.withLock { body(&$0.fd, &$0.ownedPath) }
    }

    /// Closes the listening socket and unlinks the path if this server bound it. Idempotent.
    func closeListener() {
        listener.withLock { l in
            guard l.fd >= 0 else { return }
            Glibc.close(l.fd)
            l.fd = -1
            if let path = l.ownedPath { _ = unlink(path) }
        }
    }
}

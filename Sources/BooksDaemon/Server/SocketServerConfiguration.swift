import Glibc

/// Settings of a `SocketServer`.
public struct SocketServerConfiguration: Sendable {
    /// The filesystem path to bind; nil when the listening socket is inherited (socket activation).
    public var path: String?
    /// Permissions applied to the socket file after bind (default `0o660`).
    public var socketMode: mode_t
    /// The most connections open at once; the next one gets `limit-exceeded` and is closed.
    public var maxClients: Int
    /// The longest request line accepted (bytes, newline excluded); longer → `too-large` + disconnect.
    public var maxRequestBytes: Int
    /// The bound on a client's pending output. Broadcast events that would exceed it disconnect the
    /// subscriber as lagged; while replies exceed it, the server stops reading that client's requests.
    public var clientQueueBytes: Int
    /// The most requests of one connection handed to the delegate and not yet answered; further
    /// requests wait (and the connection is not read) until answers are queued.
    public var maxPendingRequests: Int
    /// Connections that have not completed `hello` within this time are closed.
    public var helloTimeout: Duration
    /// The name and version reported in the hello reply, e.g. `booksd 1.0`.
    public var serverName: String
    /// The most connections open at once from one uid (`SO_PEERCRED`), counting those that have
    /// not said hello; the next one gets `limit-exceeded` and is closed. 0 means no per-uid limit.
    /// Uids in `uidLimitExemptions` are not limited. Default 64. Bounded by half of
    /// `maxClients` (see `effectiveMaxClientsPerUID`).
    public var maxClientsPerUID: Int
    /// Uids exempt from `maxClientsPerUID` (still bound by `maxClients`); default root and the
    /// daemon's own effective uid.
    public var uidLimitExemptions: Set<uid_t> = [0, geteuid()]
    /// A connection that said hello, is not subscribed, and has no request unanswered, no line
    /// waiting and no output queued is closed once nothing was read from or written to it for
    /// this long; nil turns the idle timeout off. Subscribers are never idle-closed. Default 300 s.
    public var idleTimeout: Duration?
    /// The most bytes of unfinished request lines held for all connections together; when a read
    /// takes the total over it, the connection holding the largest unfinished line is answered
    /// `too-large` and closed (repeated until the total fits). Default 64 MiB.
    public var partialLineBudgetBytes: Int
    /// The most bytes of a streamed list or snapshot queued for one connection: the next page
    /// is encoded only while less is queued, so a client that does not read costs at most this
    /// plus one page. Default 256 KiB.
    public var pageBudgetBytes: Int
    /// Broadcasts to at least this many subscribers are sent from two threads (`ParallelSender`).
    /// Default: 128 with 4 or more CPUs online; with fewer, never (`Int.max`): local subscribers
    /// read on the other core, and a second sending thread would take it from them (measured in
    /// docs/BENCHMARKS.md, fan-out).
    public var parallelSendThreshold = SocketServerConfiguration.defaultParallelSendThreshold

    /// The per-uid limit applied: `maxClientsPerUID`, but at most half of `maxClients` (at least
    /// 1), so one uid that is not exempt can never hold every slot and another user always gets
    /// in; 0 (no per-uid limit) when `maxClientsPerUID` is 0.
    public var effectiveMaxClientsPerUID: Int {
        maxClientsPerUID == 0 ? 0 : min(maxClientsPerUID, max(1, maxClients / 2))
    }

    /// The default `parallelSendThreshold` for this machine.
    public static var defaultParallelSendThreshold: Int { sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 4 ? 128 : Int.max }

    /// Creates a configuration; every limit has the documented default.
    public init(
        path: String?, socketMode: mode_t = 0o660, maxClients: Int = 1024,
        maxRequestBytes: Int = 1 << 20, clientQueueBytes: Int = 8 << 20, maxPendingRequests: Int = 64,
        helloTimeout: Duration = .seconds(10), serverName: String = "booksd", maxClientsPerUID: Int = 64,
        idleTimeout: Duration? = .seconds(300), partialLineBudgetBytes: Int = 64 << 20,
        pageBudgetBytes: Int = 256 << 10
    ) {
        self.path = path
        self.socketMode = socketMode
        self.maxClients = maxClients
        self.maxRequestBytes = maxRequestBytes
        self.clientQueueBytes = clientQueueBytes
        self.maxPendingRequests = maxPendingRequests
        self.helloTimeout = helloTimeout
        self.serverName = serverName
        self.maxClientsPerUID = maxClientsPerUID
        self.idleTimeout = idleTimeout
        self.partialLineBudgetBytes = partialLineBudgetBytes
        self.pageBudgetBytes = pageBudgetBytes
    }
}

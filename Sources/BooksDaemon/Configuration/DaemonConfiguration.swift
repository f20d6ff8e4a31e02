import BooksCore
import Glibc

/// Every setting of `booksd`, with documented defaults.
///
/// A value of this type is complete and validated: it is produced by `init()` (all defaults), by
/// `ConfigurationFile.apply(to:resolver:)` and by `BooksdCommandLine.configuration(...)`. User and
/// group names have already been resolved to numeric IDs.
public struct DaemonConfiguration: Sendable, Equatable {
    /// The book file to watch (`file`). Default `"books.txt"`, relative to the working directory.
    public var filePath: String = "books.txt"
    /// Whether `file` / `--file` was given: with stores or a store folder configured, the file is
    /// then served as the store `default` too.
    public var fileIsExplicit = false
    /// Named stores (`store NAME = PATH [FORMAT]` lines, `--store NAME=PATH[:FORMAT]`), in order.
    public var stores: [StoreSpec] = []
    /// The stores of `stores` that are replicas (`replica NAME = PATH [FORMAT]`, `--replica`): their
    /// file is a copy of the store another booksd owns, kept in sync over NATS (needs `nats_url`).
    public var replicaStores: Set<StoreName> = []
    /// The watched folder (`store_folder`, `--dir`): every `*.txt` / `*.json` in it is a store.
    public var storeFolder: String? = nil
    /// The replica folder (`replica_folder`, `--replica-dir`): every store the owner booksd
    /// publishes under `nats_prefix` gets a replica `<DIR>/<store>.txt` (or an existing
    /// `<store>.json`), stores published later included (needs `nats_url`).
    public var replicaFolder: String? = nil
    /// Format of the book file (`format`). Default `.text`.
    public var format: BookFileFormat = .text
    /// Path of the listening socket (`socket`). Default nil: see `effectiveSocketPath(environment:)`.
    /// Ignored when systemd passes a listening socket (socket activation).
    public var socketPath: String? = nil
    /// Permission bits of a socket the daemon creates itself (`socket_mode`). Default `0o660`.
    public var socketMode: mode_t = 0o660
    /// User IDs allowed to modify books (`writer_users`), besides the daemon's own user. Default none.
    public var writerUIDs: [uid_t] = []
    /// Group IDs whose members may modify books (`writer_groups`). Default none.
    public var writerGroups: [gid_t] = []
    /// Quiet period before a destructive-looking file state (mass deletion, truncation) is believed
    /// (`confirmation_ms`). Default 1000.
    public var confirmationMilliseconds: Int = 1000
    /// Quiet period after a change event before the file is read (`settle_ms`). Default 0.
    public var settleMilliseconds: Int = 0
    /// Polling interval when inotify cannot be trusted, e.g. on NFS/CIFS (`poll_interval_ms`). Default 1000.
    public var pollIntervalMilliseconds: Int = 1000
    /// Poll even on local filesystems (`force_polling`). Default false.
    public var forcePolling: Bool = false
    /// Follow a symbolic link at the book path when the link is owned by the daemon's user
    /// (`allow_symlink`). Default false: a link is refused, so nobody can point the daemon at
    /// another file.
    public var allowSymlink: Bool = false
    /// Number of change sets kept for clients resuming from a sequence number (`change_log_retention`).
    /// Default 10000.
    public var changeLogRetention: Int = 10_000
    /// Where the epoch, book versions and change log are kept across restarts (`state_directory`);
    /// `none` keeps no history (every start is a new epoch). Default nil: see
    /// `effectiveStateDirectory(environment:)`.
    public var stateDirectory: String? = nil
    /// Seconds between heartbeats to idle subscribers (`heartbeat_seconds`). Default 30.
    public var heartbeatSeconds: Int = 30
    /// Maximum simultaneous client connections (`max_clients`). Default 1024.
    public var maxClients: Int = 1024
    /// Maximum simultaneous connections from one uid (`max_clients_per_uid`); 0 means no limit.
    /// Root and the daemon's own effective uid are exempt (still bound by `max_clients`). Default 64.
    public var maxClientsPerUID: Int = 64
    /// Maximum stores served at once (`max_stores`); fewer when `RLIMIT_NOFILE` leaves fewer
    /// descriptors after those kept for clients (`StoreRegistry.storeLimit`). Default 10000.
    public var maxStores: Int = 10_000
    /// `history_max_age`: change sets older than this (seconds before the newest) are dropped from
    /// each store's history (0: no age limit). Default 30 days: "what happened last month" answers.
    public var historyMaxAgeSeconds: Int = 30 * 86_400
    /// `history_max_bytes`: each store's history is cut to this many bytes of book text (0: no
    /// limit). Default 256 MiB: 100,000 change sets of a few books, or one import of 1M rows.
    public var historyMaxBytes: Int = 256 << 20
    /// Maximum size of one client request line (`max_request_bytes`). Default 1 MiB.
    public var maxRequestBytes: Int = 1 << 20
    /// Bound of each client's output queue; a slower client is disconnected (`client_queue_bytes`).
    /// Default 8 MiB.
    public var clientQueueBytes: Int = 8 << 20
    /// How much of a streamed list or snapshot may wait in one client's output queue; the next
    /// page is encoded only below it (`page_budget_bytes`). Default 256 KiB.
    public var pageBudgetBytes: Int = 256 << 10
    /// Seconds a new client has to send its hello (`hello_timeout_seconds`). Default 10.
    public var helloTimeoutSeconds: Int = 10
    /// Seconds after which a client that said hello, is not subscribed and has nothing pending or
    /// queued is disconnected (`idle_timeout_seconds`); 0 turns it off. Default 300.
    public var idleTimeoutSeconds: Int = 300
    /// Bytes of unfinished request lines held for all clients together (`partial_line_budget_bytes`);
    /// past it, the client holding the largest one is disconnected with `too-large`. Default 64 MiB.
    public var partialLineBudgetBytes: Int = 64 << 20
    /// Milliseconds one `list`, `query` or `subscribe` may spend filtering and sorting on the
    /// engine's queue before it fails with `query-too-expensive` (`query_budget_ms`); 0 turns the
    /// budget off. Default 500.
    public var queryBudgetMilliseconds: Int = 500
    /// Maximum length of one line of the book file (`max_line_bytes`). Default 1 MiB.
    public var maxLineBytes: Int = 1 << 20
    /// Minimum level logged (`log_level`). Default `.info`.
    public var logLevel: LogLevel = .info
    /// Publishing to and requests from NATS JetStream (`nats_*`). Default off.
    public var nats = NATSSettings()
    /// The HTTP API and web page (`http_*`). Default off.
    public var http = HTTPSettings()

    /// The all-defaults configuration.
    public init() {}

    /// The state directory to use, nil for none: `stateDirectory` if set (nil when `none`); else
    /// `$STATE_DIRECTORY` (systemd's `StateDirectory=`, its first entry) if set; else the hidden
    /// directory `.<file name>.history` beside the book file.
    public func effectiveStateDirectory(environment: [String: String] = ProcessEnvironment.current()) -> String? {
        if let stateDirectory { return stateDirectory == "none" ? nil : stateDirectory }
        if let systemd = environment["STATE_DIRECTORY"], !systemd.isEmpty {
            return String(systemd.split(separator: ":").first ?? Substring(systemd))
        }
        let slash = filePath.lastIndex(of: "/")
        let name = slash.map { String(filePath[filePath.index(after: $0)...]) } ?? filePath
        let directory = slash.map { String(filePath[..<$0]) } ?? "."
        return (directory.isEmpty ? "" : directory) + "/." + name + ".history"
    }

    /// The socket path to bind: `socketPath` if set; else `$XDG_RUNTIME_DIR/booksd.sock` if
    /// `XDG_RUNTIME_DIR` is set and non-empty; else `.booksd.sock` in the book file's directory
    /// (`"./.booksd.sock"`-style relative path when `filePath` has no directory part).
    public func effectiveSocketPath(environment: [String: String] = ProcessEnvironment.current()) -> String {
        if let socketPath { return socketPath }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime.hasSuffix("/") ? runtime + "booksd.sock" : runtime + "/booksd.sock"
        }
        guard let slash = filePath.lastIndex(of: "/") else { return ".booksd.sock" }
        let dir = filePath[..<slash]
        return dir.isEmpty ? "/.booksd.sock" : dir + "/.booksd.sock"
    }
}

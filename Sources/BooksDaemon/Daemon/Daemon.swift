import BooksCore
import BooksPlatform
import BooksStore
import CLinux
import Dispatch
import Glibc

/// The whole `booksd` process: configuration, the book file's engine, socket server, systemd
/// notifications, signals, heartbeats and the watchdog, wired together.
///
/// Its parts are services (`Daemon+Services`) of a `ServiceGroup`, started in order and stopped in
/// reverse. Start-up order makes `READY=1` truthful: the file is loaded, the watch is established
/// and the socket accepts before readiness is announced. SIGHUP reloads the configuration file,
/// SIGTERM and SIGINT stop cleanly (pending writes finish, subscribers get a shutdown notice, and
/// `run` returns 0).
public final class Daemon: Sendable {
    let configuration: DaemonConfiguration
    let commandLine: BooksdCommandLine
    let logger: Logger
    let notifier = SystemdNotifier()
    /// Heartbeat and watchdog timers.
    let timerQueue = DispatchQueue(label: "booksd.timers")
    /// The thread that takes SIGTERM, SIGINT and SIGHUP (see `SignalWaiter`).
    let signalThread = Locked<DedicatedThread?>(nil)
    let sources = RetainedSources()
    /// What the services made (see `Daemon+Services`).
    let parts = Locked(Parts())
    let heartbeatTimer = TimerBox()
    /// The replicas' links (`--replica`), started with NATS.
    let replicaLinks = Locked<[ReplicaLink]>([])
    /// The replica folder (`--replica-dir`), started with NATS.
    let replicaFolder = Locked<ReplicaFolder?>(nil)

    /// The one inotify instance every store shares (nil when polling is forced).
    let hub: InotifyHub?
    /// The HTTP API's gateway to the engines (nil when `http_listen` is not set), and its server.
    let httpGateway: HTTPGateway?
    let httpServer = Locked<HTTPServer?>(nil)

    /// Creates the daemon for a merged configuration.
    public init(configuration: DaemonConfiguration, commandLine: BooksdCommandLine) {
        self.configuration = configuration
        self.commandLine = commandLine
        self.logger = Logger.automatic(level: configuration.logLevel)
        self.hub = configuration.forcePolling ? nil : InotifyHub()
        self.httpGateway =
            configuration.http.isEnabled ? HTTPGateway(feedLimitBytes: configuration.clientQueueBytes) : nil
    }

    /// Starts the daemon's services (`services()`, in order), serves until SIGTERM or SIGINT, then
    /// stops them in reverse and returns 0; returns 1, after stopping what had started, when one
    /// cannot start. SIGHUP reloads the configuration. Never calls `exit`: the executable exits
    /// with the code returned. `SignalWaiter.install()` must have run first (booksd's `main` does).
    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // Book files and their line tables are large, short-lived buffers: a fixed mmap threshold
        // keeps each in its own mapping, returned to the system when freed (glibc's adaptive
        // threshold would otherwise move buffers of up to 32 MB into the heap, which then stays big).
        _ = books_set_mmap_threshold(1 << 20)
        // libinotifytools uses select(): its descriptor must stay below 1024, so take it first.
        if !configuration.forcePolling { _ = InotifyHub.prepare() }
        var hooks = ServiceGroup.Hooks()
        hooks.ready = { [self] in announceReady() }
        hooks.reload = { [self] in reload() }
        hooks.stopping = { [self] number in
            _ = try? notifier.stopping()
            logger.notice("signal \(number): stopping")
        }
        hooks.failed = { [self] _, error in
            logger.error("booksd cannot start: \(error)")
            _ = try? notifier.send("STATUS=failed: \(error)\nERRNO=1")
        }
        let group = ServiceGroup(services(), hooks: hooks)
        // The signals reach the group as inputs; one sent while the services start waits there
        // until they all run.
        do {
            let thread = try SignalWaiter.start { number in group.post(signal: number) }
            signalThread.withLock { $0 = thread }
        } catch {
            hooks.failed("signals", error)
            return 1
        }
        return group.run()
    }

    /// Every service runs: finishes the start-up's writes, says so in the log and to systemd.
    func announceReady() {
        guard let registry = current.registry else { return }
        registry.drainAll()
        let stores = registry.statuses()
        let listed = stores.prefix(8).map { "\($0.name)=\($0.path)" }.joined(separator: ", ")
        let served =
            stores.count == 1 && stores[0].name == StoreName.default.rawValue
            ? "\(stores[0].path) (\(stores[0].format))"
            : "\(stores.count) store(s) (\(listed)\(stores.count > 8 ? ", …" : ""))"
        let socket = current.inherited == nil ? configuration.effectiveSocketPath() : "inherited from systemd"
        logger.notice(
            "booksd ready: \(served), socket \(socket)",
            [
                "BOOKS_FILE": stores.first?.path ?? "", "BOOKS_SEQ": "\(stores.first?.seq ?? 0)",
                "BOOKS_EPOCH": stores.first?.epoch ?? "",
            ])
        _ = try? notifier.ready()
        registry.republishStatus()
        registry.finishStartup()
    }

    /// The registry of the daemon's stores and the server's router over it; each engine is made
    /// with its complete channel chain (`storeChannels`: the `StoreChannel` of its store, events
    /// tagged with the store, and the HTTP and NATS or replica stages). The router is stateless:
    /// the chains need none.
    func makeRegistry(server: SocketServer) -> (StoreRegistry, StoreRouter) {
        let registry = StoreRegistry(
            environment: StoreRegistry.Environment(
                configuration: configuration, logger: logger, notifier: notifier, hub: hub,
                channels: { name in self.storeChannels(name, server: server) }))
        let router = StoreRouter(server: server, directory: registry)
        router.follow(registry)
        return (registry, router)
    }

    /// Starts the watched folder (`--dir`), if configured.
    func startFolder(_ registry: StoreRegistry) throws -> StoreFolder? {
        guard let path = configuration.storeFolder else { return nil }
        let folder = StoreFolder(
            path: path, registry: registry, hub: hub, logger: logger,
            confirmation: .milliseconds(configuration.confirmationMilliseconds),
            pollInterval: .milliseconds(configuration.pollIntervalMilliseconds),
            hasSavedHistory: { [configuration] in StoreHistory.exists(for: $0, configuration: configuration) })
        try folder.start()
        return folder
    }

    /// (Re)schedules subscriber heartbeats every `seconds` (live on reload).
    func scheduleHeartbeat(seconds: Int) {
        let interval = max(1, seconds)
        heartbeatTimer.get()?.schedule(deadline: .now() + .seconds(interval), repeating: .seconds(interval))
    }

    func reload() {
        guard let registry = current.registry else { return }
        _ = try? notifier.reloading()
        logger.notice("SIGHUP: reloading the configuration")
        switch BooksdCommandLine.evaluate(arguments: Array(CommandLine.arguments.dropFirst())) {
        case .run(let fresh):
            var live = fresh
            // The files, stores, folder and socket cannot change without a restart.
            if fresh.filePath != configuration.filePath || fresh.format != configuration.format
                || fresh.effectiveSocketPath() != configuration.effectiveSocketPath()
                || fresh.stores != configuration.stores || fresh.storeFolder != configuration.storeFolder
                || fresh.replicaFolder != configuration.replicaFolder
            {
                logger.warning("file, format, store, folder and socket changes take effect only after a restart")
                live.filePath = configuration.filePath
                live.format = configuration.format
                live.socketPath = configuration.socketPath
                live.stores = configuration.stores
                live.storeFolder = configuration.storeFolder
                live.replicaFolder = configuration.replicaFolder
                live.fileIsExplicit = configuration.fileIsExplicit
            }
            if live.nats != configuration.nats {
                let changed = ConfigurationKey.changedNATSKeys(from: configuration.nats, to: fresh.nats)
                logger.warning(
                    """
                    \(changed.joined(separator: ", ")) changed: nats_* settings take effect only after a restart                     (NATS goes on with the settings booksd started with)
                    """)
                live.nats = configuration.nats
            }
            live.http = keepHTTPSettings(fresh.http)
            registry.reconfigure(live)
            scheduleHeartbeat(seconds: live.heartbeatSeconds)
            logger.notice("configuration reloaded")
        case .exit(_, _, let standardError):
            logger.error(
                """
                the new configuration is refused, the old one stays in force: \
                \(standardError.trimmingSuffixNewlines())
                """
            )
        }
        _ = try? notifier.ready()
        registry.republishStatus()
    }
}

extension String {
    func trimmingSuffixNewlines() -> String {
        var s = Substring(self)
        while s.last == "\n" { s = s.dropLast() }
        return String(s)
    }
}

/// Holds the heartbeat timer so a reload can reschedule it.
///
/// `@unchecked Sendable` is safe: the reference is only read and written under the lock, and a
/// dispatch timer may be rescheduled from any thread.
final class TimerBox: @unchecked Sendable {
    private var timer: (any DispatchSourceTimer)?
    private let lock = Locked(())

    func set(_ timer: any DispatchSourceTimer) { lock.withLock { _ in self.timer = timer } }
    func get() -> (any DispatchSourceTimer)? { lock.withLock { _ in timer } }
}

/// Keeps dispatch sources alive for the life of the daemon.
///
/// `@unchecked Sendable` is safe here: the array is only ever appended to, under the lock, and
/// never read; the sources themselves are thread-safe dispatch objects.
final class RetainedSources: @unchecked Sendable {
    private var items: [any DispatchSourceProtocol] = []
    private let lock = Locked(())

    func keep(_ source: any DispatchSourceProtocol) {
        lock.withLock { _ in items.append(source) }
    }
}

import BooksCore
import BooksPlatform
import BooksStore
import CLinux
import Dispatch
import Glibc

/// The whole `booksd` process: configuration, the book file's engine, socket server, systemd
/// notifications, signals, heartbeats and the watchdog, wired together.
///
/// Start-up order makes `READY=1` truthful: the file is loaded, the watch is established and the
/// socket accepts before readiness is announced. SIGHUP reloads the configuration file, SIGTERM
/// and SIGINT stop cleanly (pending writes finish, subscribers get a shutdown notice, exit 0).
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
    let running = Locked<Running?>(nil)
    let heartbeatTimer = TimerBox()
    /// The replicas' links (`--replica`), started with NATS.
    let replicaLinks = Locked<[ReplicaLink]>([])
    /// The replica folder (`--replica-dir`), started with NATS.
    let replicaFolder = Locked<ReplicaFolder?>(nil)

    struct Running: Sendable {
        let registry: StoreRegistry
        let server: SocketServer
        let folder: StoreFolder?
    }

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

    /// Runs until stopped by a signal; never returns (exits the process).
    public func run() -> Never {
        signal(SIGPIPE, SIG_IGN)
        // Before any thread exists: SIGTERM/SIGINT/SIGHUP go to a pipe that the signal thread
        // reads (none lost, even one sent during start-up), and the I/O threads never see them.
        SignalWaiter.install()
        // Book files and their line tables are large, short-lived buffers: a fixed mmap threshold
        // keeps each in its own mapping, returned to the system when freed (glibc's adaptive
        // threshold would otherwise move buffers of up to 32 MB into the heap, which then stays big).
        _ = books_set_mmap_threshold(1 << 20)
        // libinotifytools uses select(): its descriptor must stay below 1024, so take it first.
        if !configuration.forcePolling { _ = InotifyHub.prepare() }
        do {
            try start()
        } catch {
            logger.error("booksd cannot start: \(error)")
            _ = try? notifier.send("STATUS=failed: \(error)\nERRNO=1")
            exit(1)
        }
        dispatchMain()
    }

    func start() throws {
        try refuseIfAnotherDaemonServes()
        // The socket: inherited from systemd, or bound here (and removed again if the start fails).
        let inherited = try SocketActivation.listeningSockets().first
        let socketPath = configuration.effectiveSocketPath()
        let server = try SocketServer(
            configuration: SocketServerConfiguration(
                path: inherited == nil ? socketPath : nil, socketMode: configuration.socketMode,
                maxClients: configuration.maxClients, maxRequestBytes: configuration.maxRequestBytes,
                clientQueueBytes: configuration.clientQueueBytes,
                helloTimeout: .seconds(configuration.helloTimeoutSeconds), serverName: BooksdCommandLine.versionString,
                maxClientsPerUID: configuration.maxClientsPerUID,
                idleTimeout: configuration.idleTimeoutSeconds > 0 ? .seconds(configuration.idleTimeoutSeconds) : nil,
                partialLineBudgetBytes: configuration.partialLineBudgetBytes,
                pageBudgetBytes: configuration.pageBudgetBytes),
            inheritedListeningFD: inherited)
        do {
            try serve(server, inherited: inherited, socketPath: socketPath)
        } catch {
            if inherited == nil { unlink(socketPath) }
            throw error
        }
    }

    /// The rest of `start` once the socket is there.
    private func serve(_ server: SocketServer, inherited: Int32?, socketPath: String) throws {
        try hub?.start()
        let (registry, router) = makeRegistry(server: server)

        // The files, then the watches, then the socket.
        let specs = configuration.effectiveStores
        try prepareReplicaFiles()
        let failures = registry.addAll(specs)
        for (spec, error) in failures {
            logger.error(
                "store '\(spec.name)' (\(spec.path)) is not served: \(error)", ["BOOKS_STORE": spec.name.rawValue])
        }
        // Nothing to serve at all (no store could start, no folder): fail as a single file did.
        if let first = failures.first, failures.count == specs.count, configuration.storeFolder == nil,
            configuration.replicaFolder == nil
        {
            throw first.1
        }
        // NATS: every store publishes to its own stream, bucket and api subject. The
        // stores of the watched folder are linked when the registry reports them.
        let nats = try attachNATS(registry)
        let folder = try startFolder(registry)
        try startHTTP(registry: registry, router: router)
        try server.start(delegate: router)
        try startNATS(nats, registry: registry)
        try startReplicaFolder(registry, links: nats)
        running.withLock { $0 = Running(registry: registry, server: server, folder: folder) }
        try installSignalHandlers()
        installTimers(registry, server: server)
        registry.drainAll()
        let stores = registry.statuses()
        let listed = stores.prefix(8).map { "\($0.name)=\($0.path)" }.joined(separator: ", ")
        let served =
            stores.count == 1 && stores[0].name == StoreName.default.rawValue
            ? "\(stores[0].path) (\(stores[0].format))"
            : "\(stores.count) store(s) (\(listed)\(stores.count > 8 ? ", …" : ""))"
        logger.notice(
            "booksd ready: \(served), socket \(inherited == nil ? socketPath : "inherited from systemd")",
            [
                "BOOKS_FILE": stores.first?.path ?? "", "BOOKS_SEQ": "\(stores.first?.seq ?? 0)",
                "BOOKS_EPOCH": stores.first?.epoch ?? "",
            ])
        _ = try? notifier.ready()
        registry.republishStatus()
        registry.finishStartup()
    }

    /// The registry of the daemon's stores and the server's router over it; each engine's
    /// channel is the router's `StoreChannel` of its store (events tagged with the store).
    func makeRegistry(server: SocketServer) -> (StoreRegistry, StoreRouter) {
        let late = LateRouter()
        let registry = StoreRegistry(
            environment: StoreRegistry.Environment(
                configuration: configuration, logger: logger, notifier: notifier, hub: hub,
                channel: { name -> any ClientChannel in
                    guard let router = late.router else { return server }
                    return self.httpChannel(router.channel(for: name.rawValue), store: name.rawValue)
                }))
        let router = StoreRouter(server: server, directory: registry)
        late.router = router
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

    func installSignalHandlers() throws {
        let thread = try SignalWaiter.start { [self] number in
            if number == SIGHUP { reload() } else { stop(signal: number) }
        }
        signalThread.withLock { $0 = thread }
    }

    func installTimers(_ registry: StoreRegistry, server: SocketServer) {
        let heartbeat = DispatchSource.makeTimerSource(queue: timerQueue)
        heartbeat.setEventHandler { for engine in registry.engines { engine.heartbeat() } }
        heartbeat.resume()
        sources.keep(heartbeat)
        heartbeatTimer.set(heartbeat)
        scheduleHeartbeat(seconds: configuration.heartbeatSeconds)

        if let watchdog = SystemdNotifier.watchdogInterval() {
            // The primary store's engine (or the first; none in an empty watched folder).
            let engine = registry.primaryEngine ?? registry.engines.first
            // WATCHDOG=1 only when the watcher thread, the server loop and the engine's queue all
            // prove they run (see WatchdogProbe): a stuck event loop stops the pings.
            let notifier = self.notifier
            let probe = WatchdogProbe(
                watcher: engine?.watcher, server: server, engine: engine,
                logger: logger, ping: { _ = try? notifier.watchdog() })
            let timer = DispatchSource.makeTimerSource(queue: timerQueue)
            let milliseconds = Int(
                watchdog.components.seconds * 1000 + watchdog.components.attoseconds / 1_000_000_000_000_000)
            timer.schedule(deadline: .now(), repeating: .milliseconds(max(milliseconds, 100)))
            timer.setEventHandler { probe.run() }
            timer.resume()
            sources.keep(timer)
        }
    }

    /// (Re)schedules subscriber heartbeats every `seconds` (live on reload).
    func scheduleHeartbeat(seconds: Int) {
        let interval = max(1, seconds)
        heartbeatTimer.get()?.schedule(deadline: .now() + .seconds(interval), repeating: .seconds(interval))
    }

    func reload() {
        guard let running = running.withLock({ $0 }) else { return }
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
            running.registry.reconfigure(live)
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
        running.registry.republishStatus()
    }

    func stop(signal number: Int32) {
        _ = try? notifier.stopping()
        logger.notice("signal \(number): stopping")
        if let running = running.withLock({ $0 }) {
            running.folder?.stop()
            running.registry.stopWatchingAll()
            // Requests already sent before the signal may still sit in socket buffers: refuse
            // new clients, wait (bounded) until the server thread handed every complete request
            // to the engine, then finish every queued write. This runs on the signal thread, so
            // the engine's queue keeps answering meanwhile.
            running.server.stopAccepting()
            running.server.deliverPendingInput(timeout: .seconds(1))
            running.registry.drainAll()
            running.registry.closeHistoryAll()
            stopHTTP()
            running.server.shutdown(reason: "booksd is stopping", timeout: .seconds(2))
        }
        exit(0)
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

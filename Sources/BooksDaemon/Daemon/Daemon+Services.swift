import BooksCore
import Dispatch
import Glibc

/// The daemon's parts as services, in start order (stopped in reverse; see `ServiceGroup`).
extension Daemon {
    /// What the services made, for the services after them, readiness and reloads.
    struct Parts: Sendable {
        var server: SocketServer?
        var inherited: Int32?
        var registry: StoreRegistry?
        var router: StoreRouter?
        var nats: NATSStoreLinks?
        var folder: StoreFolder?
    }

    var current: Parts { parts.withLock { $0 } }

    /// The socket is bound first (and, unless inherited, removed when it stops); the stores load
    /// their files and watch them before the folder, HTTP and the socket's clients are served;
    /// the watchdog pings only once all the rest runs. Stopping, in reverse: the replicas stop,
    /// the socket refuses new clients and every request already sent is handed over and finished,
    /// HTTP stops, the folder stops, the NATS responders stop taking requests and the publishers
    /// publish what they were offered and stop, the stores stop watching, finish what is queued and close
    /// their history, the hub stops, and subscribers get a shutdown notice as the socket closes.
    func services() -> [any DaemonService] {
        let socket = ServiceStep("socket", start: bindSocket) {
            self.current.server?.shutdown(reason: "booksd is stopping", timeout: .seconds(2))
        }
        return [socket] + (hub.map { [$0] } ?? []) + [
            ServiceStep("stores", start: startStores) {
                guard let registry = self.current.registry else { return }
                registry.stopWatchingAll()
                registry.drainAll()
                registry.closeHistoryAll()
            },
            ServiceStep("NATS links") {
                guard let registry = self.current.registry else { return }
                let links = try self.attachNATS(registry)
                self.parts.withLock { $0.nats = links }
            } stop: {
                // After the socket's requests were drained, before the stores close their history.
                let parts = self.current
                parts.nats?.stop { parts.registry?.drainAll() }
            },
            ServiceStep("store folder") {
                guard let registry = self.current.registry else { return }
                let folder = try self.startFolder(registry)
                self.parts.withLock { $0.folder = folder }
            } stop: {
                self.current.folder?.stop()
            },
            ServiceStep("HTTP server") {
                let parts = self.current
                guard let registry = parts.registry, let router = parts.router else { return }
                try self.startHTTP(registry: registry, router: router)
            } stop: {
                self.stopHTTP()
            },
            ServiceStep("socket clients") {
                let parts = self.current
                guard let server = parts.server, let router = parts.router else { return }
                try server.start(delegate: router)
            } stop: {
                // Requests already sent before the stop may still sit in socket buffers: refuse
                // new clients, wait (bounded) until the server thread handed every complete
                // request to the engine, then finish every queued write. The engines' queues
                // keep answering meanwhile.
                let parts = self.current
                parts.server?.stopAccepting()
                parts.server?.deliverPendingInput(timeout: .seconds(1))
                parts.registry?.drainAll()
            },
            ServiceStep("NATS publishing") {
                guard let registry = self.current.registry else { return }
                try self.startNATS(self.current.nats, registry: registry)
                try self.startReplicaFolder(registry, links: self.current.nats)
            } stop: {
                self.replicaFolder.withLock({ $0 })?.stop()
                for link in self.replicaLinks.withLock({ $0 }) { link.stop() }
            },
            ServiceStep("heartbeat", start: startHeartbeat) { self.heartbeatTimer.get()?.cancel() },
            // Pings go on while the rest stops: a slow stop is not taken for a hang.
            ServiceStep("watchdog", start: startWatchdog),
        ]
    }

    /// Refuses a second daemon on the same files, then binds the socket (or takes systemd's).
    func bindSocket() throws {
        try refuseIfAnotherDaemonServes()
        let inherited = try SocketActivation.listeningSockets().first
        let server = try SocketServer(
            configuration: SocketServerConfiguration(
                path: inherited == nil ? configuration.effectiveSocketPath() : nil,
                socketMode: configuration.socketMode, maxClients: configuration.maxClients,
                maxRequestBytes: configuration.maxRequestBytes, clientQueueBytes: configuration.clientQueueBytes,
                helloTimeout: .seconds(configuration.helloTimeoutSeconds), serverName: BooksdCommandLine.versionString,
                maxClientsPerUID: configuration.maxClientsPerUID,
                idleTimeout: configuration.idleTimeoutSeconds > 0 ? .seconds(configuration.idleTimeoutSeconds) : nil,
                partialLineBudgetBytes: configuration.partialLineBudgetBytes,
                pageBudgetBytes: configuration.pageBudgetBytes),
            inheritedListeningFD: inherited)
        parts.withLock {
            $0.server = server
            $0.inherited = inherited
        }
    }

    /// Loads every configured store's file and watches it; fails when none can be served (and
    /// there is no folder to wait on).
    func startStores() throws {
        guard let server = current.server else { return }
        try prepareReplicaFiles()
        let (registry, router) = makeRegistry(server: server)
        parts.withLock {
            $0.registry = registry
            $0.router = router
        }
        let specs = configuration.effectiveStores
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
    }

    /// The subscribers' heartbeats (rescheduled by a reload).
    func startHeartbeat() {
        guard let registry = current.registry else { return }
        let heartbeat = DispatchSource.makeTimerSource(queue: timerQueue)
        heartbeat.setEventHandler { for engine in registry.engines { engine.heartbeat() } }
        heartbeat.resume()
        sources.keep(heartbeat)
        heartbeatTimer.set(heartbeat)
        scheduleHeartbeat(seconds: configuration.heartbeatSeconds)
    }

    /// `WATCHDOG=1` when systemd asks for it, only while the watcher thread, the server loop and
    /// the engine's queue all prove they run (see `WatchdogProbe`): a stuck event loop stops the
    /// pings.
    func startWatchdog() {
        guard let watchdog = SystemdNotifier.watchdogInterval(), let registry = current.registry,
            let server = current.server
        else { return }
        // The primary store's engine (or the first; none in an empty watched folder).
        let engine = registry.primaryEngine ?? registry.engines.first
        let notifier = self.notifier
        let probe = WatchdogProbe(
            watcher: engine?.watcher, server: server, engine: engine, logger: logger,
            ping: { _ = try? notifier.watchdog() })
        let timer = DispatchSource.makeTimerSource(queue: timerQueue)
        let milliseconds = Int(
            watchdog.components.seconds * 1000 + watchdog.components.attoseconds / 1_000_000_000_000_000)
        timer.schedule(deadline: .now(), repeating: .milliseconds(max(milliseconds, 100)))
        timer.setEventHandler { probe.run() }
        timer.resume()
        sources.keep(timer)
    }
}

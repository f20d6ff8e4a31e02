import BooksCore
import BooksPlatform
import BooksProtocol
import BooksStore
import Dispatch
import Synchronization

/// Every store the daemon serves, each with its own `BookEngine` (its own serial queue, so a
/// huge, unreadable, FIFO, rewritten or flooded store never delays another), added and removed
/// at run time.
///
/// Guarantees:
/// - Names are unique and two stores never share a file (device and inode, symlinks followed):
///   ``add(_:)`` refuses with a ``StoreConfigurationError`` naming both, and nothing else changes.
/// - ``engine(named:)`` returns a store only once it is loaded and watched, and no longer once
///   ``remove(_:reason:)`` began; observers hear `added` after the store serves and `removed`
///   after its engine stopped watching, in that order per store.
/// - Each store's saved history lives in its own directory (see
///   `DaemonConfiguration.stateDirectory(for:)`); a removed store's descriptors are closed.
/// - At most ``storeLimit(_:)`` stores (`max_stores`, bounded by `RLIMIT_NOFILE`): a store over
///   it is refused with ``StoreConfigurationError/tooManyStores(_:path:limit:reason:)``.
/// - Safe from any thread; no lock is held while a file is read or an observer runs.
public final class StoreRegistry: Sendable {
    /// What the registry needs to build an engine.
    public struct Environment: Sendable {
        /// The daemon's settings (each store gets them, with its own path and format).
        public var configuration: DaemonConfiguration
        public var logger: Logger
        public var notifier: SystemdNotifier
        /// The shared inotify hub (nil: each engine picks its own watcher, e.g. polling).
        public var hub: InotifyHub?
        /// The complete channel chain of a store's engine (the server tags its events with the
        /// store), composed before the engine is made.
        public var channels: @Sendable (StoreName) -> StoreChannels
    }

    struct Entry: Sendable {
        var spec: StoreSpec
        var key: StoreFileKey
        var engine: BookEngine?
        var ready: Bool
    }

    let environment: Locked<Environment>
    let entries = Locked<[StoreName: Entry]>([:])
    let observers = Locked<[@Sendable (StoreRegistryEvent) -> Void]>([])
    /// False while the daemon starts: owed history snapshots wait for ``finishStartup()``.
    let started = Atomic<Bool>(false)
    /// The last `STATUS=` line sent (see `StoreRegistry+Status`).
    let lastStatusLine = Locked<String?>(nil)

    /// An empty registry.
    public init(environment: Environment) {
        self.environment = Locked(environment)
    }

    /// Registers `handler` for every later `added` / `removed` (called on the thread that added
    /// or removed the store, outside every lock; it must not block).
    public func observe(_ handler: @escaping @Sendable (StoreRegistryEvent) -> Void) {
        observers.withLock { $0.append(handler) }
    }

    /// Loads, watches and registers the store; returns its engine. `appearing`: the store appeared
    /// while the daemon runs (see `BookEngine.load(listing:appearing:)`). `announced` false: it
    /// serves, but observers hear `added` only from ``announce(_:)`` (a replica, once its feed
    /// has an owner position).
    /// - Throws: ``StoreConfigurationError`` for a duplicate name, a file another store has, or a
    ///   watch that cannot be set up (the store is then not added).
    @discardableResult
    public func add(
        _ spec: StoreSpec, appearing: Bool = false, announced: Bool = true
    ) throws(StoreConfigurationError)
        -> BookEngine
    {
        try reserve(spec)
        let engine = makeEngine(spec)
        engine.load(appearing: appearing)
        return try activate(engine, spec: spec, announced: announced)
    }

    /// Tells the observers that the store `name`, added with `announced` false, was `added`
    /// (nothing when it is no longer served).
    public func announce(_ name: StoreName) {
        guard let engine = engine(named: name) else { return }
        notify(.added(engine.storeStatus))
    }

    /// Adds every store of `specs`, loading up to one per CPU at once; returns the refused ones
    /// with why (the others serve). `appearing`: as for ``add(_:appearing:)``.
    public func addAll(_ specs: [StoreSpec], appearing: Bool = false) -> [(StoreSpec, StoreConfigurationError)] {
        var accepted: [StoreSpec] = []
        var failures: [(StoreSpec, StoreConfigurationError)] = []
        for spec in specs {
            do throws(StoreConfigurationError) {
                try reserve(spec)
                accepted.append(spec)
            } catch { failures.append((spec, error)) }
        }
        let engines = accepted.map { makeEngine($0) }
        // One listing per directory for the stale-temporary check (not one per store: a folder
        // of n stores would be read n times).
        var listings: [String: [String]] = [:]
        for spec in accepted {
            guard let directory = try? WatchedPath(spec.path).directory, listings[directory] == nil else { continue }
            if case .success(let names) = StoreFolder.list(directory) {
                listings[directory] = names.filter { $0.contains(".booksd-") }
            }
        }
        let candidates = accepted.map { spec in (try? WatchedPath(spec.path).directory).flatMap { listings[$0] } }
        let refused = Locked<[(StoreSpec, StoreConfigurationError)]>([])
        let specs = accepted
        Self.inLanes(engines.count) { index in
            engines[index].load(listing: candidates[index], appearing: appearing)
            do throws(StoreConfigurationError) { _ = try activate(engines[index], spec: specs[index]) } catch {
                refused.withLock { $0.append((specs[index], error)) }
            }
        }
        return failures + refused.withLock { $0 }.sorted { $0.0.name < $1.0.name }
    }

    /// Runs `body` for 0..<count in `lanes` parallel lanes (more than the CPUs: loading a store
    /// also waits for the disk — its saved history's first writes — and the other lanes use it).
    static func inLanes(_ count: Int, lanes: Int = 8, _ body: @Sendable (Int) -> Void) {
        let lanes = max(1, min(lanes, count))
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: count, by: lanes) { body(index) }
        }
    }

    /// Stops serving the store `name`: no new requests reach it, its watch stops, pending writes
    /// are committed, a last change set deletes its books, its history is closed.
    /// - Throws: ``StoreConfigurationError/unknownStore(_:)``.
    public func remove(_ name: StoreName, reason: String) throws(StoreConfigurationError) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: name) }) else { throw .unknownStore(name) }
        if let engine = entry.engine {
            engine.stopWatching()
            engine.drain()
            engine.retire()
            engine.closeHistory()
            engine.releaseHistory()  // its descriptors, now: the engine may outlive the store
        }
        let logger = environment.withLock { $0.logger }
        logger.notice(
            "store '\(name)' removed: \(reason)", ["BOOKS_STORE": name.rawValue, "BOOKS_FILE": entry.spec.path])
        notify(.removed(name, reason: reason))
        republishStatus()
    }

    /// The engine of the store `name`, once it serves.
    public func engine(named name: StoreName) -> BookEngine? {
        entries.withLock { $0[name] }.flatMap { $0.ready ? $0.engine : nil }
    }

    /// The engines of every serving store, by name.
    public var engines: [BookEngine] {
        entries.withLock { $0.values.filter(\.ready).compactMap(\.engine) }.sorted { $0.storeName < $1.storeName }
    }

    /// Names of the serving stores, sorted.
    public var names: [StoreName] { engines.map(\.storeName) }

    /// The store version-1 clients use: `default`, else the only store; nil otherwise.
    public var primaryEngine: BookEngine? {
        if let engine = engine(named: .default) { return engine }
        let all = engines
        return all.count == 1 ? all[0] : nil
    }

    /// Each serving store's status (copies; never waits for a store's queue), sorted by name.
    public func statuses() -> [StoreInfo] { engines.map(\.storeStatus) }

    /// The spec of the store `name` (also while it loads).
    public func spec(named name: StoreName) -> StoreSpec? { entries.withLock { $0[name]?.spec } }

    /// The daemon is ready: every store writes the history snapshots it owes, and stores added
    /// from now on do so at once.
    public func finishStartup() {
        started.store(true, ordering: .releasing)
        for engine in engines { engine.historyReady() }
    }

    /// Stops every store's watch (shutdown).
    public func stopWatchingAll() { for engine in engines { engine.stopWatching() } }

    /// Commits every store's queued writes (shutdown).
    public func drainAll() { for engine in engines { engine.drain() } }

    /// Closes every store's saved history durably (shutdown), several stores at once (each waits
    /// for its `fdatasync`s).
    public func closeHistoryAll() {
        let all = engines
        Self.inLanes(all.count) { all[$0].closeHistory() }
    }

    /// Applies a reloaded configuration to every store.
    public func reconfigure(_ configuration: DaemonConfiguration) {
        environment.withLock { $0.configuration = configuration }
        for engine in engines {
            var own = configuration
            own.filePath = engine.store.configuration.path
            own.format = engine.store.configuration.format
            engine.reconfigure(own)
        }
    }

    // MARK: Steps of add

    private func reserve(_ spec: StoreSpec) throws(StoreConfigurationError) {
        let key = StoreFileKey.of(spec.path)
        let limit = Self.storeLimit(environment.withLock { $0.configuration })
        try entries.withLock { (all: inout [StoreName: Entry]) throws(StoreConfigurationError) in
            if let existing = all[spec.name] { throw .duplicateName(spec.name, existingPath: existing.spec.path) }
            if all.count >= limit.count {
                throw .tooManyStores(spec.name, path: spec.path, limit: limit.count, reason: limit.reason)
            }
            if let (other, entry) = all.first(where: { $0.value.key == key }) {
                throw .sameFile(spec.name, path: spec.path, other: other, otherPath: entry.spec.path)
            }
            all[spec.name] = Entry(spec: spec, key: key, engine: nil, ready: false)
        }
    }

    private func makeEngine(_ spec: StoreSpec) -> BookEngine {
        let environment = self.environment.withLock { $0 }
        var configuration = environment.configuration
        configuration.filePath = spec.path
        configuration.format = spec.format
        let store = makeBookStore(
            configuration: BookStoreConfiguration(
                path: spec.path, format: spec.format, lineLimit: configuration.maxLineBytes,
                allowSymlink: configuration.allowSymlink))
        let (history, restored) = StoreHistory.open(
            spec: spec, configuration: configuration, logger: environment.logger)
        let channels = environment.channels(spec.name)
        let channel = channels.channel
        let engine = BookEngine(
            configuration: configuration, store: store, logger: environment.logger, notifier: environment.notifier,
            history: history, restored: restored, storeName: spec.name, channel: channel)
        channels.engine.bind(engine)
        engine.statusSink.withLock {
            $0 = { [weak self] line in self?.publishStatus(single: line, subscribers: channel.statistics.subscribers) }
        }
        entries.withLock { $0[spec.name]?.engine = engine }
        return engine
    }

    private func activate(
        _ engine: BookEngine, spec: StoreSpec, announced: Bool = true
    ) throws(StoreConfigurationError)
        -> BookEngine
    {
        let hub = environment.withLock { $0.hub }
        do {
            try engine.startWatching(hub: hub)
        } catch {
            engine.closeHistory()
            entries.withLock { _ = $0.removeValue(forKey: spec.name) }
            throw .watchFailed(spec.name, error.description)
        }
        let stillWanted = entries.withLock { all -> Bool in
            guard all[spec.name]?.engine === engine else { return false }
            all[spec.name]?.ready = true
            return true
        }
        guard stillWanted else {
            engine.stopWatching()
            throw .unknownStore(spec.name)
        }
        if started.load(ordering: .acquiring) { engine.historyReady() }
        if announced { notify(.added(engine.storeStatus)) }
        return engine
    }

    private func notify(_ event: StoreRegistryEvent) {
        for observer in observers.withLock({ $0 }) { observer(event) }
    }
}

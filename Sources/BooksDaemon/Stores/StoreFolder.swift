import BooksPlatform
import Dispatch
import Glibc
import Synchronization

/// The watched folder (`--dir`): a thin shell that feeds a ``StoreFolderStateMachine`` with the
/// folder's listing, the hub's directory events, presence checks and its timer, and carries out
/// its actions on the registry — all on one serial queue (`booksd.folder`), never on the hub's
/// thread, so loading new stores delays no other store's events.
///
/// Without a hub (polling forced) or on a network filesystem, the folder is listed again every
/// poll interval instead of watched.
public final class StoreFolder: Sendable {
    let path: String
    let registry: StoreRegistry
    let hub: InotifyHub?
    let logger: Logger
    let pollInterval: Duration
    let queue = DispatchQueue(label: "booksd.folder")
    let machine: Locked<StoreFolderStateMachine>
    let listener = Locked<UInt64?>(nil)
    let timer = TimerBox()
    /// The re-listing timer when the folder is polled.
    let pollTimer = TimerBox()
    let stopped = Atomic<Bool>(false)
    /// True once the stores of the folder's first listing were added (see `start`).
    let startedUp = Atomic<Bool>(false)
    let origin = ContinuousClock.now
    /// Whether a store file has a saved history (chooses among files of one store name at start).
    let hasSavedHistory: @Sendable (StoreSpec) -> Bool

    /// A folder at `path` serving its files through `registry`.
    public init(
        path: String, registry: StoreRegistry, hub: InotifyHub?, logger: Logger, confirmation: Duration,
        pollInterval: Duration, hasSavedHistory: @escaping @Sendable (StoreSpec) -> Bool = { _ in false }
    ) {
        self.hasSavedHistory = hasSavedHistory
        self.path = path
        self.registry = registry
        self.hub = hub
        self.logger = logger
        self.pollInterval = pollInterval
        machine = Locked(
            StoreFolderStateMachine(configuration: .init(folder: path, confirmation: confirmation)))
    }

    /// Watches the folder, then adds every store file in it; returns once they all serve.
    /// - Throws: `FileWatcherError` when the folder cannot be watched or listed.
    public func start() throws {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            self.feed(.tick(now: self.now))
        }
        source.schedule(deadline: .distantFuture)
        source.resume()
        timer.set(source)
        let network = detectNetworkFileSystem(path: path)
        if let hub, network == nil {
            let id = try hub.listen(directory: path) { [weak self] name, event in
                guard let self else { return }
                let now = self.now
                self.queue.async { self.feed(.entry(name, event, now: now)) }
            }
            listener.withLock { $0 = id }
        } else {
            startPolling(reason: network.map { "it is on a \($0) filesystem" } ?? "polling is forced")
        }
        let names: [String]
        switch Self.list(path) {
        case .success(let listed): names = listed
        case .failure(let error): throw error
        }
        logger.notice("watched folder \(path): \(names.count) entries, serving its *.txt and *.json files")
        queue.sync {
            feed(.listed(names, initial: true, now: now, withHistory: withHistory(names)))
            // Start-up: take every batch now (the daemon is not ready before its stores are).
            while machine.withLock({ !$0.pendingAdds.isEmpty }) { feed(.tick(now: now)) }
            startedUp.store(true, ordering: .releasing)
        }
    }

    /// Stops watching the folder (its stores stay until the registry stops them).
    public func stop() {
        stopped.store(true, ordering: .releasing)
        if let id = listener.withLock({ $0 }) { hub?.remove(id) }
        timer.get()?.cancel()
        pollTimer.get()?.cancel()
    }

    /// Lists the folder every poll interval (no inotify: polling forced, or a network filesystem
    /// where inotify misses other hosts' changes).
    private func startPolling(reason: String) {
        logger.warning("watched folder \(path): \(reason); listing it every \(pollInterval) instead of watching")
        let source = DispatchSource.makeTimerSource(queue: queue)
        let (seconds, attoseconds) = pollInterval.components
        let milliseconds = max(10, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
        source.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds))
        source.setEventHandler { [weak self] in
            guard let self else { return }
            switch Self.list(self.path) {
            case .success(let names): self.feed(.listed(names, initial: false, now: self.now))
            case .failure(let error): self.feed(.listFailed("\(error)"))
            }
        }
        source.resume()
        pollTimer.set(source)
    }

    var now: Duration { ContinuousClock.now - origin }

    /// Of the files in `names` that would be the same store (`orders.txt`, `orders.json`), those
    /// with a saved history (only such files are probed).
    func withHistory(_ names: [String]) -> Set<String> {
        var byStore: [StoreName: [(String, StoreSpec)]] = [:]
        let folder = path.hasSuffix("/") ? path : path + "/"
        for name in names {
            guard let store = StoreFolderNames.store(for: name) else { continue }
            byStore[store.name, default: []].append(
                (name, StoreSpec(name: store.name, path: folder + name, format: store.format)))
        }
        var found: Set<String> = []
        for files in byStore.values where files.count > 1 {
            for (name, spec) in files where hasSavedHistory(spec) { found.insert(name) }
        }
        return found
    }

    /// Runs `input` through the machine and carries out its actions; answers are fed back.
    func feed(_ input: StoreFolderInput) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped.load(ordering: .acquiring) else { return }
        var pending = [input]
        while !pending.isEmpty {
            let actions = machine.withLock { $0.handle(pending.removeFirst()) }
            for action in actions {
                if let answer = perform(action) { pending.append(answer) }
            }
        }
    }

    private func perform(_ action: StoreFolderAction) -> StoreFolderInput? {
        switch action {
        case .list:
            switch Self.list(path) {
            case .success(let names): return .listed(names, initial: false, now: now)
            case .failure(let error): return .listFailed("\(error)")
            }
        case .check(let names):
            var results: [String: Bool] = [:]
            for name in names { results[name] = Self.isRegularFile(path + "/" + name) }
            return .checked(results, now: now)
        case .add(let specs):
            // After the start, a file that comes is a store that appears: it starts empty and its
            // books are its first change set, as a store that goes ends with one deleting them.
            let failures = registry.addAll(specs, appearing: startedUp.load(ordering: .acquiring))
            var overLimit: [(StoreSpec, StoreConfigurationError)] = []
            for (spec, error) in failures {
                if case .tooManyStores = error {
                    overLimit.append((spec, error))
                    continue
                }
                logger.error("watched folder \(path): '\(spec.path)' is not served: \(error)")
            }
            if let (_, first) = overLimit.first {  // one line per batch, not one per file
                logger.error("watched folder \(path): \(overLimit.count) file(s) not served, the first: \(first)")
            }
            let added = specs.count - failures.count
            if added > 0 { logger.notice("watched folder \(path): \(added) store(s) added") }
            return nil
        case .remove(let specs, let reason):
            for spec in specs where registry.spec(named: spec.name)?.path == spec.path {
                try? registry.remove(spec.name, reason: reason)
            }
            return nil
        case .wake(let delay):
            schedule(after: delay)
            return nil
        case .log(let level, let message):
            logger.log(level, message)
            return nil
        }
    }

    private func schedule(after delay: Duration) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        timer.get()?.schedule(deadline: .now() + .nanoseconds(max(nanoseconds, 0)))
    }

    /// The folder's entry names.
    static func list(_ path: String) -> Result<[String], FileWatcherError> {
        guard let directory = opendir(path) else { return .failure(.watchFailed(directory: path, errno: errno)) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return .success(names.sorted())
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}

import BooksPlatform
import Dispatch
import Glibc

/// One inotify instance for the whole process, shared by every store: booksd's inotify watcher.
///
/// libinotifytools keeps process-wide state, so the hub owns the library on ONE dedicated thread
/// (`booksd-inotify`) and serves any number of per-file watchers (``fileWatcher(path:)``, a
/// ``HubFileWatcher`` per store) and directory listeners (``listen(directory:handler:)``, the
/// watched folder). A file is watched through its DIRECTORY, filtered on the exact file name: a
/// watch on the file itself would silently follow a renamed backup, and only the directory's
/// watch sees every edit method (in place, rename-over, rm + recreate).
///
/// Guarantees:
/// - ONE watch per directory, however many files or listeners it serves; a directory's watch is
///   removed when its last registration goes.
/// - Events are classified by ``InotifyEventClassifier`` (exact file name, editors' swap,
///   backup and temporary names ignored; see docs/EVENTS.md) and delivered on the hub
///   thread, serially. Handlers must return at once (post work elsewhere): a handler that
///   blocks delays every store.
/// - A registration returns once its directory is watched (or throws why not); after its
///   removal returns, its handler is not called again (removal from inside a handler takes
///   effect for the next event).
/// - A directory deleted, moved or unmounted: its registrations get ``FileWatchEvent/watchLost``,
///   the hub retries every second and sends `.watchLost` again once the watch is back; other
///   directories are unaffected. A queue overflow reaches every registration as `.overflow`.
/// - One hub runs per process (it needs the library to itself): a second one's ``start()``
///   throws ``FileWatcherError/anotherInotifyWatcherActive(activePath:)``.
/// - `stop()` wakes the thread at once (a pipe watched by the same inotify instance).
///
/// Descriptor limit: libinotifytools `select()`s on its descriptor and aborts the process when
/// that descriptor is ≥ 1024. Call ``prepare()`` early, before the process opens many
/// descriptors; if the descriptor still lands too high, ``start()`` throws
/// ``FileWatcherError/descriptorAboveSelectLimit(fd:)`` instead of letting the library abort.
///
/// Limitations: renames of an ANCESTOR of a watched directory are not seen; a symlinked file is
/// watched by its link name only (edits to the link target elsewhere are not seen).
public final class InotifyHub: Sendable {
    typealias ID = InotifyHubRoutes.ID

    /// A registration's callback.
    enum Handler: Sendable {
        case file(@Sendable (FileWatchEvent) -> Void)
        case listener(@Sendable (String, FileWatchEvent) -> Void)
    }

    /// State shared by the callers and the hub thread (short critical sections only).
    struct Shared: Sendable {
        var routes = InotifyHubRoutes()
        var handlers: [ID: Handler] = [:]
        var nextID: ID = 1
        /// Callers waiting for the next reconciliation round of the watches.
        var waiters: [DispatchSemaphore] = []
        /// Why a directory could not be watched in the last round.
        var failures: [String: FileWatcherError] = [:]
    }

    let shared = Locked(Shared())
    let running = Locked<InotifyHubRun?>(nil)

    /// The slot name used in the process-wide reservation of libinotifytools.
    static let slotName = "the shared inotify hub"

    /// Who holds libinotifytools in this process (one hub at a time), if anyone.
    static let processSlot = Locked<String?>(nil)

    /// Reserves a descriptor number below 1024 for libinotifytools, to be released just before
    /// the library is initialised. Call it first thing in the daemon, before opening many
    /// descriptors. Returns whether a slot is reserved. Safe to call more than once.
    @discardableResult
    public static func prepare() -> Bool {
        InotifyToolsLibrary.reserveSlot()
    }

    /// Creates a hub; its thread starts with ``start()`` or the first registration.
    public init() {}

    deinit { stop() }

    /// Starts the hub's thread and libinotifytools; returns once it runs (idempotent).
    public func start() throws(FileWatcherError) {
        try running.withLock { (current: inout InotifyHubRun?) throws(FileWatcherError) in
            guard current == nil else { return }
            current = try InotifyHubRun.launch(hub: self)
        }
    }

    /// Stops the thread and releases libinotifytools; registrations are dropped (they get no more
    /// events). Idempotent.
    public func stop() {
        guard let run = running.withLock({ $0.take() }) else { return }
        run.requestStop()
        shared.withLock { state in
            state.handlers.removeAll()
            state.routes = InotifyHubRoutes()
            for waiter in state.waiters { waiter.signal() }
            state.waiters.removeAll()
        }
    }

    /// A per-file watcher on this hub for the file at `path` (not started).
    public func fileWatcher(path: String) throws(FileWatcherError) -> HubFileWatcher {
        try HubFileWatcher(hub: self, path: path)
    }

    /// Registers `handler` for every entry of `directory` (`name`, event classified as for a file
    /// of that name; the name is empty for `.overflow` and `.watchLost`). Returns the
    /// registration to pass to ``remove(_:)``.
    public func listen(
        directory: String, handler: @escaping @Sendable (String, FileWatchEvent) -> Void
    ) throws(FileWatcherError) -> UInt64 {
        let path = try WatchedPath(directory + "/x").directory
        return try register(directory: path, handler: .listener(handler)) { id, routes in
            routes.addListener(id, directory: path)
        }
    }

    /// Removes a registration (see the guarantees above).
    public func remove(_ id: UInt64) {
        let needsSync = shared.withLock { state -> Bool in
            state.handlers[id] = nil
            return state.routes.remove(id) != nil
        }
        guard needsSync, let run = running.withLock({ $0 }) else { return }
        if run.isHubThread {
            run.wake.wake()  // the loop removes the watch at its next round
        } else {
            waitForRound(run)
        }
    }

    /// Directories watched now (one inotify watch each).
    public var watchCount: Int { shared.withLock { $0.routes.watchCount } }

    /// Whether the hub's thread runs and went round its loop within the last 10 s.
    public var isAlive: Bool { running.withLock { $0 }?.liveness.isAlive(withinMilliseconds: 10_000) ?? false }

    func register(
        directory: String, handler: Handler, _ add: (ID, inout InotifyHubRoutes) -> Void
    ) throws(FileWatcherError) -> ID {
        try start()
        guard let run = running.withLock({ $0 }) else { throw .alreadyStarted }
        let (id, watched) = shared.withLock { state -> (ID, Bool) in
            let id = state.nextID
            state.nextID += 1
            add(id, &state.routes)
            state.handlers[id] = handler
            return (id, (state.routes.directories[directory]?.watch ?? -1) >= 0)
        }
        if watched || run.isHubThread {
            if !watched { run.wake.wake() }
            return id
        }
        waitForRound(run)
        let failure = shared.withLock { state -> FileWatcherError? in
            guard (state.routes.directories[directory]?.watch ?? -1) < 0 else { return nil }
            return state.failures[directory] ?? .watchFailed(directory: directory, errno: ENOENT)
        }
        if let failure {
            remove(id)
            throw failure
        }
        return id
    }

    /// Wakes the hub thread and waits until it reconciled the watches with the routes.
    private func waitForRound(_ run: InotifyHubRun) {
        let waiter = DispatchSemaphore(value: 0)
        shared.withLock { $0.waiters.append(waiter) }
        run.wake.wake()
        waiter.wait()
    }

    /// Calls each delivery's handler (on the hub thread, outside every lock).
    func deliver(_ deliveries: [InotifyHubRoutes.Delivery]) {
        guard !deliveries.isEmpty else { return }
        let calls = shared.withLock { state in
            deliveries.compactMap { delivery -> (@Sendable () -> Void)? in
                switch delivery {
                case .file(let id, let event):
                    guard case .file(let handler) = state.handlers[id] else { return nil }
                    return { handler(event) }
                case .listener(let id, let name, let event):
                    guard case .listener(let handler) = state.handlers[id] else { return nil }
                    return { handler(name, event) }
                }
            }
        }
        for call in calls { call() }
    }
}

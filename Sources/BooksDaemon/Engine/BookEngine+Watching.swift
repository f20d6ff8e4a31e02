import BooksCore
import CLinux

/// The engine's file watcher.
extension BookEngine {
    /// Starts watching the file (inotify on `hub`; polling on a network filesystem, or when forced
    /// or there is no hub), then compares the file once more, so a change between `load()` and
    /// the watch is not missed.
    public func startWatching(hub: InotifyHub? = nil) throws(FileWatcherError) {
        let configuration = settings.withLock { $0 }
        let path = store.configuration.path
        let interval = Double(configuration.pollIntervalMilliseconds) / 1000
        let watcher: any FileWatcher
        var warning: String?
        if let hub, !configuration.forcePolling {
            let made = try makeFileWatcher(path: path, hub: hub, pollingIntervalSeconds: interval)
            watcher = made.watcher
            warning = made.warning
        } else {
            watcher = try PollingFileWatcher(path: path, intervalSeconds: interval)
            warning = "polling forced by configuration"
        }
        if let warning { logger.warning(warning) }
        watch.withLock { $0 = WatchState(watcher: watcher, warning: warning) }
        if watcher.deliversOnSharedThread {
            try watcher.start { [self] event in postFileEvent(event) }
        } else {
            try watcher.start { [self] event in fileEvent(event) }
        }
        fileEvent(.contentMayHaveChanged)
    }

    /// An event from a shared watcher thread: queued (never waits for this engine's queue, so a
    /// busy store does not delay the others' events). Consecutive equal events wait as one, and
    /// the waiting list is bounded (past it, one `.overflow`: the file is re-read in full).
    func postFileEvent(_ event: FileWatchEvent) {
        let schedule = mailbox.withLock { box -> Bool in
            if box.events.last != event {
                if box.events.count >= Self.mailboxLimit {
                    box.events = [.overflow]
                } else {
                    box.events.append(event)
                }
            }
            defer { box.scheduled = true }
            return !box.scheduled
        }
        guard schedule else { return }
        queue.async { [self] in
            let events = mailbox.withLock { box in
                defer {
                    box.events.removeAll()
                    box.scheduled = false
                }
                return box.events
            }
            // Named while it carries out watcher events (logs, profilers and the fault-injection
            // tests tell this work from client requests on the same queue by the thread's name).
            Self.namingThread(Self.eventThreadName) { for event in events { run(.fileEvent(event)) } }
        }
    }

    /// The name of a dispatch thread while it handles a shared watcher's events.
    public static let eventThreadName = "booksd-events"

    /// Runs `body` with the calling thread named `name`, then restores its name.
    static func namingThread(_ name: String, _ body: () -> Void) {
        var previous = [CChar](repeating: 0, count: 16)
        let named = books_get_current_thread_name(&previous) == 0
        _ = books_set_current_thread_name(name)
        body()
        if named { _ = books_set_current_thread_name(previous) }
    }

    /// Events waiting in the mailbox at most (see `postFileEvent`).
    static let mailboxLimit = 64

    /// The watcher, once started (for the watchdog's liveness check).
    public var watcher: (any FileWatcher)? { watch.withLock { $0.watcher } }

    /// Stops watching; the engine still answers requests.
    public func stopWatching() {
        watcher?.stop()
    }
}

/// File events waiting for an engine's queue (see `BookEngine.postFileEvent`).
struct FileEventMailbox: Sendable {
    var events: [FileWatchEvent] = []
    var scheduled = false
}

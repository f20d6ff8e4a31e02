import BooksCore

/// The engine's file watcher.
extension BookEngine {
    /// Starts watching the file (inotify, or polling on a network filesystem or when forced),
    /// then compares the file once more, so a change between `load()` and the watch is not missed.
    public func startWatching() throws(FileWatcherError) {
        let configuration = settings.withLock { $0 }
        let path = store.configuration.path
        let interval = Double(configuration.pollIntervalMilliseconds) / 1000
        let watcher: any FileWatcher
        var warning: String?
        if configuration.forcePolling {
            watcher = try PollingFileWatcher(path: path, intervalSeconds: interval)
            warning = "polling forced by configuration"
        } else {
            let made = try makeFileWatcher(path: path, pollingIntervalSeconds: interval)
            watcher = made.watcher
            warning = made.warning
        }
        if let warning { logger.warning(warning, fields) }
        watch.withLock { $0 = WatchState(watcher: watcher, warning: warning) }
        try watcher.start { [self] event in fileEvent(event) }
        fileEvent(.contentMayHaveChanged)
    }

    /// The watcher, once started (for the watchdog's liveness check).
    public var watcher: (any FileWatcher)? { watch.withLock { $0.watcher } }

    /// Stops watching; the engine still answers requests.
    public func stopWatching() {
        watcher?.stop()
    }
}
